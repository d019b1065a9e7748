"""``tianhei table --console`` as a judge starts it on a machine without a screen: the log names the https address,
the pairing code and the fingerprint of the certificate the table made for itself; the phone's certificate has that
fingerprint, the phone pairs and reads the game, and Ctrl-C stops the table and the console cleanly."""

from __future__ import annotations

import os
import re
import signal
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx

from controller.web.certificate import fingerprint_of

ROOT = Path(__file__).resolve().parents[2]


def test_tianhei_table_console_headless(tmp_path):
    cfg = tmp_path / "tianhei.toml"
    cfg.write_text(f'[table]\nlanguage = "en"\n[game]\nplayers = 8\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n'
                   '[console]\nhost = "127.0.0.1"\nport = 0\n')
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SDL_AUDIODRIVER": "dummy", "SDL_VIDEODRIVER": "dummy"}
    proc = subprocess.Popen([sys.executable, "-c", "import sys; from controller.cli import main; sys.exit(main())",
                             "table", "--config", str(cfg), "--console", "--headless", "--autoplay", "heuristic"],
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
    try:
        assert proc.stderr is not None
        lines: list[str] = []
        found = None
        deadline = time.monotonic() + 60
        while found is None and time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line, "the table stopped: " + "".join(lines)
            lines.append(line)
            found = re.search(r"judge's console at (https://127\.0\.0\.1:(\d+)/) \(pairing code (\d{6})\)", line)
        assert found, "".join(lines)
        base, port, code = found.group(1).rstrip("/"), int(found.group(2)), found.group(3)
        said = re.search(r"certificate made now: (\S+), SHA-256 fingerprint ([0-9A-F:]{95}) ", proc.stderr.readline())
        assert said, "the certificate's fingerprint is not in the log"
        # the phone is shown the certificate (the browser's warning); the judge compares its fingerprint with the log
        shown = ssl.get_server_certificate(("127.0.0.1", port))
        assert fingerprint_of(shown.encode()) == said.group(2)
        assert Path(said.group(1)) == tmp_path / "console-cert.pem"  # beside the journal
        assert oct((tmp_path / "console-key.pem").stat().st_mode & 0o777) == "0o600"
        with httpx.Client(base_url=base, timeout=10, verify=ssl.create_default_context(cafile=said.group(1))) as phone:
            assert phone.post("/api/pair", json={"code": code}, headers={"origin": base}).status_code == 200
            for _ in range(100):
                view = phone.get("/api/state?lang=en").json()
                if view["seats"]:
                    break
                time.sleep(0.1)
            assert len(view["seats"]) == 8 and view["seats"][0]["role"] in ("Killer", "Police", "Civilian")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert "Traceback" not in err, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
