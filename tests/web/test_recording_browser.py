"""The club's judge records prompts on the phone in a real browser: Debian's chromium with a fake microphone fed
from a file (``--use-file-for-fake-audio-capture``), so MediaRecorder records what the file says. A good take
is kept and the page goes on to the next prompt; a silent, a clipped and a noisy take are refused with their
reason on the page. Screenshots go to the test's folder (and to ``$TIANHEI_CONSOLE_SHOTS``: docs/console/).

Each take needs a browser of its own (the fake microphone's file is a launch flag), and each is recorded in real
time: about 25 s, the slowest test of the voice (marked slow)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from controller.voice.packs import ogg_duration
from tests.voice.judge_takes import RATE, takes, wav_bytes
from tests.web.live import LiveTable
from tests.web.test_browser import CHROMEDRIVER, CHROMIUM, PHONE, spki_sha256

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.usefixtures("sox")]

#: Seconds the judge holds the record button: the fake microphone's file starts as the recording does (0.6 s
#: of room, the 1.9 s of 「天亮了，请大家睁眼。」, then the room again).
RECORD_S = 3.0


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def microphone_files(folder: Path) -> dict[str, Path]:
    """Each take with a long quiet tail, so that the fake microphone (which loops its file) says it once."""
    out = {}
    folder.mkdir(parents=True, exist_ok=True)
    for name, x in takes("dawn.breaks").items():
        if name not in ("good", "silent", "clipped", "noisy"):
            continue
        rng = np.random.default_rng(5)
        tail = rng.normal(0, 10 ** (-70 / 20), int(6 * RATE)) if name != "noisy" else rng.normal(0, 0.08, 6 * RATE)
        out[name] = folder / f"{name}.wav"
        out[name].write_bytes(wav_bytes(np.concatenate([x, tail])))
    return out


def chromium(table: LiveTable, microphone: Path, profile: Path) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic",
                 f"--user-data-dir={profile}", "--lang=zh-CN", f"--window-size={PHONE[0]},{PHONE[1]}",
                 f"--ignore-certificate-errors-spki-list={spki_sha256(table.certificate)}",
                 "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                 f"--use-file-for-fake-audio-capture={microphone}", "--autoplay-policy=no-user-gesture-required"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_window_size(*PHONE)
    return driver


def until(driver: webdriver.Chrome, what, why: str, timeout: float = 30.0):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: what(), message=why)


def pair(driver: webdriver.Chrome, table: LiveTable) -> None:
    driver.get(table.base + "/record")
    assert driver.current_url.endswith("/pair")
    driver.find_element(By.ID, "code").send_keys(table.code())
    driver.find_element(By.CSS_SELECTOR, "#form button").click()
    until(driver, lambda: driver.current_url.endswith("/judge"), "paired")
    driver.get(table.base + "/record")


def record_and_send(driver: webdriver.Chrome) -> tuple[str, str]:
    """The judge taps record, says the prompt, taps stop, listens, sends; returns the verdict's code and text."""
    until(driver, lambda: driver.find_element(By.ID, "text").text, "the prompt's text")
    driver.find_element(By.ID, "rec").click()
    until(driver, lambda: driver.find_element(By.ID, "stop").is_enabled(), "recording")
    time.sleep(RECORD_S)  # a real microphone, recorded in real time
    driver.find_element(By.ID, "stop").click()
    until(driver, lambda: driver.find_element(By.ID, "send").is_enabled(), "the take")
    driver.find_element(By.ID, "play").click()  # the judge listens to the take before sending it
    driver.find_element(By.ID, "send").click()
    until(driver, lambda: driver.find_element(By.ID, "verdict").get_attribute("data-code"), "the table's verdict")
    return (str(driver.find_element(By.ID, "verdict").get_attribute("data-code")),
            driver.find_element(By.ID, "verdict").text)


def test_the_judge_records_on_the_phone_and_the_table_keeps_good_takes_and_refuses_bad_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the table runs in its own folder: the page names judge-voice/ as the config would
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.fail("chromium and chromedriver are needed (./dev test installs Debian's chromium-driver)")
    microphones = microphone_files(tmp_path / "microphone")
    shots: list[Path] = []
    with LiveTable(tmp_path, checkin=True, autoplay=None, phones=4) as t:
        verdicts = {}
        for take in ("good", "silent", "clipped", "noisy"):
            driver = chromium(t, microphones[take], tmp_path / f"profile-{take}")
            try:
                pair(driver, t)
                if take == "good":
                    until(driver, lambda d=driver: d.find_element(By.ID, "left").text, "the count")
                    shots.append(tmp_path / "record.png")
                    driver.save_screenshot(str(shots[-1]))
                    assert driver.find_element(By.ID, "text").text == "请把你的身份牌放到读卡器上。"
                    assert driver.find_element(By.ID, "where").text.endswith('[voice] pack = "judge-voice"')
                verdicts[take] = record_and_send(driver)
                shots.append(tmp_path / f"record-{take}.png")
                driver.save_screenshot(str(shots[-1]))
                if take == "good":  # kept: the page went on to the next prompt, one fewer left
                    listing = driver.execute_script("return data")
                    assert listing["prompts"][0]["recorded"] and listing["left"] == listing["total"] - 1
                    assert driver.find_element(By.ID, "pid").text == listing["prompts"][1]["id"]
            finally:
                driver.quit()
    assert verdicts["good"][0] == "ok" and verdicts["good"][1].startswith("已保存")
    assert verdicts["silent"] == ("silent", "没有听到声音：请检查麦克风是否打开、页面是否可以使用麦克风")
    assert verdicts["clipped"][0] == "clipped" and "削波" in verdicts["clipped"][1]
    assert verdicts["noisy"][0] == "noisy" and "噪音太大" in verdicts["noisy"][1]
    # what the phone recorded through MediaRecorder (Opus) and decoded: the voice alone, its silence trimmed
    assert ogg_duration(tmp_path / "judge-voice" / "setup.tap_card.ogg") == pytest.approx(1.89, abs=0.15)
    target = os.environ.get("TIANHEI_CONSOLE_SHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        for path in shots:
            shutil.copy(path, Path(target) / path.name)
