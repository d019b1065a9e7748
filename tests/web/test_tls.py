"""The judge's console over HTTPS, as a club sets it up: the table makes its own certificate the first time and keeps
it, or the club brings one; the phone is sent the session cookie only over TLS; plain HTTP is not answered; a bad
certificate or key in the config is one clear line naming the key and the fix."""

from __future__ import annotations

import logging
import os
import ssl
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from controller.config import ConfigError, load
from controller.web import certificate
from controller.web.certificate import CERT_NAME, KEY_NAME, fingerprint_of
from tests.web.live import LiveTable

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def problems_of(tmp_path: Path, console: str) -> list[str]:
    """The config check's lines for a ``[console]`` section (the rest of the config is the defaults)."""
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text("[console]\n" + console)
    with pytest.raises(ConfigError) as raised:
        load(cfg, validate_game=None, find_pack=None)
    return [str(p) for p in raised.value.problems]


def a_pair(folder: Path) -> tuple[Path, Path]:
    """A club's own certificate and key (made as the table makes its own)."""
    own = certificate.own(folder)
    return own.cert, own.key


# ---- over the wire --------------------------------------------------------------------------------------------


def test_the_judge_pairs_over_https_with_a_secure_cookie_and_reads_the_game_on_wss(tmp_path):
    with LiveTable(tmp_path) as t, t.client() as phone:
        assert t.base.startswith("https://") and t.console.url.startswith("https://")
        # the phone checks the certificate it was shown against the fingerprint the table shows (log, board)
        shown = ssl.get_server_certificate(("127.0.0.1", t.console.port))
        assert fingerprint_of(shown.encode()) == t.console.certificate.fingerprint
        assert t.on_loop(t.console.pairing)["fingerprint"] == t.console.certificate.fingerprint[:23]
        r = phone.post("/api/pair", json={"code": t.code()}, headers={"origin": t.base})
        assert r.status_code == 200
        cookie = r.headers["set-cookie"].lower()
        assert "; secure" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        assert phone.get("/api/state").status_code == 200
        with t.socket("/ws/judge?lang=en", origin=t.base, open_timeout=5,
                      additional_headers={"cookie": f"tianhei_judge={phone.cookies['tianhei_judge']}"}) as ws:
            assert '"kind":"judge"' in ws.recv(5)


def test_a_phone_that_does_not_trust_the_certificate_is_warned_not_served_silently(tmp_path):
    """A browser that has not accepted the table's certificate refuses it (the "not private" warning): the table
    cannot be impersonated without the judge's phone noticing."""
    with LiveTable(tmp_path) as t, pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.get(t.base + "/", timeout=5)


def test_plain_http_is_not_answered_and_the_table_goes_on(tmp_path, caplog):
    """No page, no redirect and no cookie in the clear (a redirect sent in the clear could be forged by whoever is
    on the Wi-Fi): the browser sees no answer; nothing is logged as an error, and HTTPS still works."""
    caplog.set_level(logging.WARNING)
    with LiveTable(tmp_path) as t:
        plain = t.base.replace("https://", "http://")
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.get(plain + "/judge", timeout=5)
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.post(plain + "/api/pair", json={"code": t.code()}, headers={"origin": plain}, timeout=5)
        with t.client() as phone:
            assert phone.get("/").status_code == 200
            assert phone.post("/api/pair", json={"code": t.code()}, headers={"origin": t.base}).status_code == 200
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith(("asyncio", "uvicorn",
                                                                                                "controller.web"))]


def test_over_https_a_page_of_the_same_host_in_plain_http_is_another_origin(tmp_path):
    with LiveTable(tmp_path) as t, t.client() as judge:
        plain = t.base.replace("https://", "http://")
        code = t.code()
        assert judge.post("/api/pair", json={"code": code}, headers={"origin": plain}).status_code == 403
        assert t.code() == code  # refused before the code was looked at


def test_tls_false_serves_plain_http_without_a_secure_cookie(tmp_path):
    """``[console] tls = false``: back to plain HTTP (docs/security.md says what that gives away)."""
    with LiveTable(tmp_path, tls=False) as t, t.client() as phone:
        assert t.base.startswith("http://") and t.console.url.startswith("http://")
        assert "fingerprint" not in t.on_loop(t.console.pairing)
        r = phone.post("/api/pair", json={"code": t.code()}, headers={"origin": t.base})
        assert r.status_code == 200 and "secure" not in r.headers["set-cookie"].lower()
    assert not (tmp_path / CERT_NAME).exists()


# ---- the table's own certificate ----------------------------------------------------------------------------


def test_the_certificate_is_made_once_and_kept_across_restarts(tmp_path):
    """The first start makes it beside the journal (the key 0600 even under a loose umask); every later start
    serves the same one, so the fingerprint the judge's phone accepted stays good."""
    old = os.umask(0o022)
    try:
        with LiveTable(tmp_path) as t:
            first = t.console.certificate
            assert first.made and first.cert == tmp_path / CERT_NAME and first.key == tmp_path / KEY_NAME
    finally:
        os.umask(old)
    assert (tmp_path / KEY_NAME).stat().st_mode & 0o777 == 0o600
    for _ in range(2):
        with LiveTable(tmp_path) as t:
            again = t.console.certificate
            assert not again.made and again.fingerprint == first.fingerprint
            shown = ssl.get_server_certificate(("127.0.0.1", t.console.port))
            assert fingerprint_of(shown.encode()) == first.fingerprint
    assert sorted(p.name for p in tmp_path.glob("console-*")) == [CERT_NAME, KEY_NAME]


def test_the_certificate_names_the_tables_addresses(tmp_path):
    own = certificate.own(tmp_path, ["192.168.1.20", "tianhei.local", "0.0.0.0", "bad name!"])
    text = subprocess.run(["openssl", "x509", "-in", str(own.cert), "-noout", "-ext", "subjectAltName"],
                          capture_output=True, text=True, check=True).stdout
    for name in ("IP Address:192.168.1.20", "DNS:tianhei.local", "IP Address:127.0.0.1", "DNS:localhost"):
        assert name in text
    assert "0.0.0.0" not in text and "bad" not in text


def test_a_lost_or_damaged_own_certificate_is_set_aside_and_made_again(tmp_path, caplog):
    first = certificate.own(tmp_path)
    (tmp_path / KEY_NAME).write_text("not a key\n")  # a damaged card
    second = certificate.own(tmp_path)
    assert second.made and second.fingerprint != first.fingerprint
    assert "not a PEM private key): set aside as *.unusable-" in caplog.text and "warn once more" in caplog.text
    aside = sorted(p.name for p in tmp_path.glob("console-*.unusable-*"))
    assert len(aside) == 2 and any(n.startswith(KEY_NAME) for n in aside)  # kept, never deleted
    (tmp_path / KEY_NAME).unlink()
    assert certificate.own(tmp_path).made


def test_an_own_certificate_is_made_again_after_it_expired(tmp_path, monkeypatch):
    first = certificate.own(tmp_path)
    ten_years_on = certificate.time.time() + 11 * 365 * 86400
    monkeypatch.setattr(certificate.time, "time", lambda: ten_years_on)
    assert certificate.check_pair(first.cert, first.key)[0][1].startswith(f"{first.cert} expired on ")
    monkeypatch.undo()
    assert certificate.own(tmp_path).fingerprint == first.fingerprint


def test_a_folder_the_table_cannot_write_is_one_clear_line(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    with pytest.raises(certificate.CertificateError, match=r"cannot keep its certificate in .*check the folder"):
        certificate.own(blocked / "state")


def test_without_openssl_the_table_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(certificate.shutil, "which", lambda name: None)
    with pytest.raises(certificate.CertificateError, match=r"needs the openssl command .*tls = false"):
        certificate.own(tmp_path)


# ---- the club's own certificate ------------------------------------------------------------------------------


def test_the_clubs_own_certificate_is_served(tmp_path):
    cert, key = a_pair(tmp_path / "club")
    with LiveTable(tmp_path, console=f'cert = "{cert}"\nkey = "{key}"\n') as t:
        assert t.console.certificate.cert == cert and not t.console.certificate.made
        shown = ssl.get_server_certificate(("127.0.0.1", t.console.port))
        assert fingerprint_of(shown.encode()) == fingerprint_of(cert.read_bytes())
    assert not (tmp_path / CERT_NAME).exists()  # nothing made beside the journal


def test_bad_certificate_settings_are_one_line_each_naming_the_key_and_the_fix(tmp_path, monkeypatch):
    cert, key = a_pair(tmp_path / "club")
    other_cert, other_key = a_pair(tmp_path / "other")
    missing = tmp_path / "nowhere.pem"
    cases = {
        f'cert = "{missing}"\nkey = "{key}"\n': ("console.cert", f"{missing}: no such file", "give the path"),
        f'cert = "{cert}"\nkey = "{missing}"\n': ("console.key", f"{missing}: no such file", "private key"),
        f'cert = "{tmp_path}"\nkey = "{key}"\n': ("console.cert", "is a folder, not a file", "give the path"),
        f'cert = "{key}"\nkey = "{key}"\n': ("console.cert", f"{key}: not a PEM certificate",
                                             "-----BEGIN CERTIFICATE-----"),
        f'cert = "{cert}"\nkey = "{cert}"\n': ("console.key", "not a PEM private key", "PRIVATE KEY"),
        f'cert = "{cert}"\nkey = "{other_key}"\n': ("console.key", f"{other_key} is not the key of {cert}",
                                                    "the key that was made with this certificate"),
        f'cert = "{cert}"\n': ("console.key", "console.cert is given without console.key", "give both"),
        f'key = "{key}"\n': ("console.cert", "console.key is given without console.cert", "give both"),
        f'tls = false\ncert = "{cert}"\nkey = "{key}"\n': ("console.cert", "tls = false", "remove"),
        'tls = "yes"\n': ("console.tls", "is not true or false", "tls = false (plain HTTP)"),
        "cert = 5\nkey = 6\n": ("console.cert", "wrong type", 'cert = "/etc/tianhei/console-cert.pem"'),
        'url = "http://tianhei.local:8080/"\n': ("console.url", "does not start with https://",
                                                 'url = "https://tianhei.local:8080/"'),
        'tls = false\nurl = "https://tianhei.local:8080/"\n': ("console.url", "does not start with http://",
                                                             "plain HTTP, tls = false"),
    }
    for section, (where, message, fix) in cases.items():
        lines = problems_of(tmp_path, section)
        assert len(lines) >= 1 and all("\n" not in line for line in lines), lines
        assert where in lines[0] and message in lines[0] and fix in lines[0], (section, lines)
    # a key protected by a passphrase (which nobody is there to type at the table)
    locked = tmp_path / "locked.pem"
    subprocess.run(["openssl", "pkey", "-in", str(key), "-aes256", "-passout", "pass:club", "-out", str(locked)],
                   check=True, capture_output=True)
    [line] = problems_of(tmp_path, f'cert = "{cert}"\nkey = "{locked}"\n')
    assert "console.key" in line and "passphrase" in line and "openssl pkey" in line
    # a key the table's user may not read
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: (_ for _ in ()).throw(PermissionError(13, "Permission denied"))
                        if p == other_key else real_read(p))
    [line] = problems_of(tmp_path, f'cert = "{other_cert}"\nkey = "{other_key}"\n')
    assert f"{other_key}: cannot be read (Permission denied)" in line and "console.key" in line


def test_the_config_check_and_the_table_say_a_bad_certificate_in_one_line(tmp_path):
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n[console]\nenabled = true\n'
                   f'cert = "{tmp_path / "club.pem"}"\nkey = "{tmp_path / "club.key"}"\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SDL_AUDIODRIVER": "dummy", "SDL_VIDEODRIVER": "dummy"}
    for args in (["config", "check", str(cfg)], ["table", "--config", str(cfg), "--headless"]):
        done = subprocess.run([sys.executable, "-m", "controller.cli", *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=120)
        said = done.stdout + done.stderr
        assert done.returncode in (1, 2) and "Traceback" not in said, said
        assert "console.cert" in said and "club.pem: no such file" in said, said


# ---- where the judge reads the fingerprint ---------------------------------------------------------------------


def test_the_board_shows_the_start_of_the_fingerprint_beside_the_code():
    from controller.board.words import board_lines

    facts = {"gesture": "deal", "pairing": {"code": "482913", "url": "https://192.168.1.20:8080/",
                                            "fingerprint": "67:D7:10:12:D0:D1:51:EE"}}
    assert [line.text for line in board_lines(facts, "zh")[-2:]] == [
        "法官手机配对码 482913  https://192.168.1.20:8080/", "证书指纹 SHA-256 67:D7:10:12:D0:D1:51:EE …"]
    assert board_lines(facts, "en")[-1].text == "Certificate SHA-256 67:D7:10:12:D0:D1:51:EE …"


def test_config_check_names_the_certificate_and_its_fingerprint(tmp_path):
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n[console]\nenabled = true\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def check() -> str:
        done = subprocess.run([sys.executable, "-m", "controller.cli", "config", "check", str(cfg)],
                              capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()[-1]

    assert check() == (f"  judge's console: on, HTTPS, the table's own certificate {tmp_path / CERT_NAME} "
                       "(made at the first start)")
    own = certificate.own(tmp_path)  # the table's first start
    assert check().endswith(f"SHA-256 fingerprint {own.fingerprint}")


def test_the_service_without_openssl_says_so_in_one_line(tmp_path):
    """``tianhei serve`` on a machine without the openssl command: one line with the fixes, not a crash."""
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[journal]\npath = "{tmp_path / "j.sqlite"}"\n[console]\nenabled = true\nport = 0\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": str(tmp_path / "nothing"), "SDL_AUDIODRIVER": "dummy"}
    done = subprocess.run([sys.executable, "-m", "controller.cli", "serve", "--config", str(cfg), "--autoplay",
                           "heuristic", "--games", "1"], capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "crash" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "tianhei: the judge's console needs the openssl command to make its certificate (sudo apt install "
        "openssl), or give [console] cert and key, or set tls = false")


def test_the_handheld_shows_the_code_and_the_fingerprint_in_turn(monkeypatch):
    """Over HTTPS, while a phone may pair, the remote's bottom line turns between the code and the first eight pairs
    of the fingerprint (116 of its 128 pixels); once the phone is paired, neither."""
    import asyncio

    from PIL import Image

    from controller.config.settings import ConsoleSection
    from controller.sim.table import SimTable
    from controller.web.adapters import with_banner
    from controller.web.console import BANNER_TURN_S, Console

    loop = asyncio.new_event_loop()  # its clock is the test's: the turns are run as their time comes
    now = [1.0]
    monkeypatch.setattr(loop, "time", lambda: now[0])
    try:
        fp = ":".join(f"{b:02X}" for b in range(0xA0, 0xC0))
        console = Console(ConsoleSection(enabled=True), loop,
                          certificate=certificate.Certificate(Path("c.pem"), Path("k.pem"), fp))
        sim = SimTable(8, lambda: now[0])
        console.wrap(sim)
        screen = Image.new("1", (128, 64))
        assert console.remote is not None and sim.remote is not None
        console.remote.display(screen)
        console.open()
        code = console.code()

        def handheld_says(text: str) -> bool:
            return sim.remote.image.tobytes() == with_banner(screen, text).tobytes()

        def run_due_timers() -> None:
            """One turn of the loop, whose clock the test has just moved: the timers now due run. Not a wait: the
            zero-second sleep only hands the loop one iteration, in which it runs the due callbacks."""
            loop.run_until_complete(asyncio.sleep(0))

        assert handheld_says(f"手机配对 {code}")
        now[0] += BANNER_TURN_S
        run_due_timers()
        assert handheld_says("A0:A1:A2:A3:A4:A5:A6:A7")
        now[0] += BANNER_TURN_S
        run_due_timers()
        assert handheld_says(f"手机配对 {code}")
        console.access.pair(code or "", "10.0.0.5", "judge's phone", now[0])
        now[0] += BANNER_TURN_S
        run_due_timers()
        assert handheld_says("手机已配对") and console._turn_timer is None  # the turns stop with the code
        console.close()
    finally:
        loop.close()
