"""The recording page's calls on the real console (HTTPS, paired), as the judge's phone makes them: the prompts
in order with what is left, a take sent and kept or refused with its reason, what the table says for a prompt
now; and refused for a phone that is not paired or a page that is not the table's."""

from __future__ import annotations

import pytest

from tests.voice.judge_takes import takes, wav_bytes
from tests.web.live import LiveTable
from tests.web.test_attacks import client, pair

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.usefixtures("sox")]


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def test_a_phone_that_is_not_paired_can_neither_see_nor_send(tmp_path):
    with LiveTable(tmp_path, checkin=True, autoplay=None) as t, client(t) as stranger:
        assert stranger.get("/record").headers["location"] == "/pair"
        assert stranger.get("/api/record/prompts").status_code == 401
        assert stranger.get("/api/record/clip?id=night.falls").status_code == 401
        r = stranger.post("/api/record/take?id=night.falls", content=b"RIFF", headers={"origin": t.base})
        assert r.status_code == 401


def test_the_judge_records_a_prompt_and_the_table_keeps_it_or_says_why_not(tmp_path):
    spoilt = takes()
    with LiveTable(tmp_path, checkin=True, autoplay=None) as t, client(t) as phone:
        csrf = pair(t, phone)
        page = phone.get("/record")
        assert page.status_code == 200 and csrf in page.text
        listing = phone.get("/api/record/prompts").json()
        assert listing["next"] == listing["prompts"][0]["id"] == "setup.tap_card"
        assert listing["left"] == listing["total"] > 150
        assert not listing["heard"] and listing["config_line"].endswith('judge-voice"')  # [voice] pack is zh-CN
        first = listing["prompts"][0]["text"]
        assert first == "请把你的身份牌放到读卡器上。"  # the table's language
        built = phone.get("/api/record/clip?id=setup.tap_card").content

        def send(take: bytes, csrf: str | None = csrf, origin: str | None = t.base, pid: str = "setup.tap_card"):
            headers = {"content-type": "audio/wav"}
            if csrf is not None:
                headers["x-tianhei-csrf"] = csrf
            if origin is not None:
                headers["origin"] = origin
            return phone.post(f"/api/record/take?id={pid}", content=take, headers=headers)

        assert send(wav_bytes(spoilt["good"]), csrf=None).status_code == 403
        assert send(wav_bytes(spoilt["good"]), origin="https://elsewhere.example").status_code == 403
        for spoilt_take, code in (("silent", "silent"), ("clipped", "clipped"), ("noisy", "noisy")):
            answer = send(wav_bytes(spoilt[spoilt_take])).json()
            assert (answer["code"], answer["next"]) == (code, "setup.tap_card"), answer
        unreadable = send(b"not a recording at all")
        assert unreadable.status_code == 400 and "not a WAV file" in unreadable.json()["error"]["en"]
        assert send(b"\0" * (3 * 1024 * 1024 + 10)).status_code == 413

        answer = send(wav_bytes(spoilt["good"])).json()
        assert answer["code"] == "ok" and answer["left"] == listing["total"] - 1
        assert answer["next"] == listing["prompts"][1]["id"]
        now = phone.get("/api/record/clip?id=setup.tap_card")
        assert now.headers["content-type"] == "audio/ogg" and now.content != built
        assert (tmp_path / "judge-voice" / "setup.tap_card.ogg").read_bytes() == now.content
        again = phone.get("/api/record/prompts").json()  # the judge comes back later: on from there
        assert again["next"] == listing["prompts"][1]["id"] and again["prompts"][0]["recorded"]
