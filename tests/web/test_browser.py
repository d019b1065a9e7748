"""The judge's console in a real browser (Debian's chromium, driven by Selenium through chromedriver), at phone
size, against a table playing on the simulated hardware on the real clock: the judge pairs with the code on the
board, pauses the game, ejects a player, undoes it, resumes, and watches the game to its end, reading the page at
each step. Screenshots go to the test's folder (and to ``$TIANHEI_CONSOLE_SHOTS`` when set: docs/console/)."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from tests.web.live import LiveTable, PublicWatcher

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
PHONE = (390, 844)  # CSS pixels of a small phone held upright


@pytest.fixture(autouse=True)
def _dummy_sdl(monkeypatch):
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def spki_sha256(cert: Path) -> str:
    """base64 of the SHA-256 of the certificate's public key: what chromium's
    ``--ignore-certificate-errors-spki-list`` takes (the key's own pin, not 'accept any certificate')."""
    pub = subprocess.run(["openssl", "x509", "-in", str(cert), "-pubkey", "-noout"], capture_output=True,
                         check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub, capture_output=True,
                         check=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


@pytest.fixture
def open_browser(tmp_path):
    """Opens chromium at phone size once the table is up, trusting the table's own certificate (and no other):
    the judge who compared the fingerprint and accepted it."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.fail("chromium and chromedriver are needed (./dev test installs Debian's chromium-driver)")
    drivers: list[webdriver.Chrome] = []

    def open_for(table: LiveTable) -> webdriver.Chrome:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-quic", f"--user-data-dir={tmp_path / 'profile'}",
                     f"--ignore-certificate-errors-spki-list={spki_sha256(table.certificate)}",
                     f"--window-size={PHONE[0]},{PHONE[1]}", "--lang=zh-CN"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        driver.set_window_size(*PHONE)
        drivers.append(driver)
        return driver

    yield open_for
    for driver in drivers:
        driver.quit()


class Judge:
    """The judge with the phone: taps, confirms, reads."""

    def __init__(self, driver: webdriver.Chrome, shots: list[Path]) -> None:
        self.d = driver
        self.shots = shots

    @staticmethod
    def again(fn):
        """The page redraws itself when the table's view changes: look again if an element was replaced."""
        for _ in range(50):
            try:
                return fn()
            except StaleElementReferenceException:
                time.sleep(0.02)
        return fn()

    def text(self, css: str) -> str:
        return str(self.again(lambda: self.d.find_element(By.CSS_SELECTOR, css).text))

    def until(self, what, timeout: float = 30.0, why: str = ""):
        return WebDriverWait(self.d, timeout, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: what(), message=why)

    def tap(self, css: str) -> None:
        self.until(lambda: self.d.find_element(By.CSS_SELECTOR, css).is_enabled(), why=f"{css} enabled")
        self.again(lambda: self.d.find_element(By.CSS_SELECTOR, css).click())

    def seat_class(self, n: int) -> str:
        return str(self.again(lambda: self.seat(n).get_attribute("class")))

    def confirm(self) -> str:
        """The sheet asks the question (the handheld's second press); the judge confirms. Returns the question."""
        self.until(lambda: self.d.find_element(By.ID, "sheet").is_displayed(), why="the confirmation")
        question = self.text("#sheet-question")
        self.d.find_element(By.ID, "sheet-yes").click()
        return question

    def seat(self, n: int):
        return self.d.find_element(By.CSS_SELECTOR, f'#seats .seat[data-seat="{n}"]')

    def shot(self, folder: Path, name: str) -> None:
        path = folder / f"{name}.png"
        self.d.save_screenshot(str(path))
        self.shots.append(path)


def test_the_judge_pairs_pauses_ejects_undoes_and_watches_the_game_to_its_end(tmp_path, open_browser):
    shots: list[Path] = []
    with LiveTable(tmp_path, seed=5, night_action_s=8, checkin=True) as t:
        assert t.base.startswith("https://")  # the table's own certificate, made beside its journal
        browser = open_browser(t)
        judge = Judge(browser, shots)
        # a player opens the public page: the board's view
        browser.get(t.base + "/")
        judge.until(lambda: judge.text("#board"), why="the public board")
        judge.shot(tmp_path, "public")
        player = PublicWatcher(t)  # another player's phone keeps the public page open all game
        # the judge opens the address from the board's QR code and types the board's code
        browser.get(t.base + "/judge")
        assert browser.current_url.endswith("/pair")  # no session: sent to pairing
        browser.find_element(By.ID, "code").send_keys("000000")
        browser.find_element(By.CSS_SELECTOR, "#form button").click()
        judge.until(lambda: "配对码错误" in judge.text("#error"), why="a wrong code is said")
        code_field = browser.find_element(By.ID, "code")
        code_field.clear()
        code = t.code()  # as the judge reads it on the board
        code_field.send_keys(code)
        judge.shot(tmp_path, "pair")
        browser.find_element(By.CSS_SELECTOR, "#form button").click()
        judge.until(lambda: browser.current_url.endswith("/judge"), why="paired")
        # over HTTPS with the table's own certificate: the session cookie only ever travels encrypted, and the
        # page's live view (its only source of updates) is a wss:// socket
        assert browser.execute_script("return location.protocol") == "https:"
        [cookie] = browser.get_cookies()
        assert cookie["name"] == "tianhei_judge" and cookie["secure"] and cookie["httpOnly"]
        # check-in: eight seats press OK; the console shows who joined and the deck; the judge starts the game
        judge.until(lambda: judge.text("#headline") == "签到", why="the check-in page")
        t.check_in(*range(1, 9))
        judge.until(lambda: judge.text("#lobby-joined") == "1, 2, 3, 4, 5, 6, 7, 8", why="eight seats joined")
        judge.shot(tmp_path, "checkin")
        judge.tap("#cmd-start")
        # the private view: every role, whose turn it is; the judge pauses as soon as the game is on
        judge.until(lambda: judge.text("#headline").startswith("第"), why="the game on the console")
        judge.tap("#cmd-pause")
        judge.until(lambda: browser.find_element(By.ID, "paused").is_displayed(), why="the paused banner")
        assert t.on_loop(lambda: t.director.paused) and judge.text("#paused") == "已暂停"
        roles = {n: judge.text(f'#seats .seat[data-seat="{n}"] .role') for n in range(1, 9)}
        expected = {n: {"killer": "杀手", "police": "警察", "civilian": "平民"}[t.director.state.role_of(n)]
                    for n in range(1, 9)}
        assert roles == expected
        judge.shot(tmp_path, "paused")
        # eject a civilian: tap the seat, then eject, then confirm
        victim = next(n for n in range(1, 9) if roles[n] == "平民"
                      and t.on_loop(lambda n=n: n in t.director.state.alive))
        judge.again(lambda: judge.seat(victim).click())
        judge.until(lambda: "selected" in judge.seat_class(victim), why="the seat is chosen")
        judge.tap("#cmd-eject")
        judge.until(lambda: browser.find_element(By.ID, "sheet").is_displayed(), why="the confirmation")
        judge.shot(tmp_path, "confirm-eject")
        assert judge.confirm() == f"请出场：{victim}号？"
        judge.until(lambda: "dead" in judge.seat_class(victim), why="the seat is out")
        assert victim not in t.on_loop(lambda: t.director.state.alive)
        assert judge.text(f'#seats .seat[data-seat="{victim}"] .dim') == "出局"
        # undo it
        judge.tap("#cmd-undo")
        assert judge.confirm() == "撤销上一步？"
        judge.until(lambda: "dead" not in judge.seat_class(victim), why="the seat is back")
        assert victim in t.on_loop(lambda: t.director.state.alive)
        # resume, and the game plays on to its end
        judge.tap("#cmd-resume")
        judge.until(lambda: not browser.find_element(By.ID, "paused").is_displayed(), why="resumed")
        judge.until(lambda: judge.text("#turn").endswith("号发言"), timeout=60, why="a speech on the console")
        judge.until(lambda: judge.text("#turn") == "游戏结束", timeout=120, why="the end of the game")
        headline = judge.text("#headline")
        assert headline.endswith("胜") or headline == "平局"
        story = judge.again(lambda: [li.get_attribute("textContent")
                                     for li in browser.find_elements(By.CSS_SELECTOR, "#story li")])
        assert story[0].startswith("结局")
        assert "第1夜" in story and "身份" in story
        assert t.on_loop(lambda: t.director.stage) == "over"
        # the buttons that make no sense any more are greyed out
        assert not browser.find_element(By.ID, "cmd-pause").is_enabled()
        judge.shot(tmp_path, "over")
        browser.execute_script("document.getElementById('story').scrollIntoView()")
        judge.shot(tmp_path, "story")
        # the same page in English
        browser.find_element(By.ID, "lang").click()
        judge.until(lambda: judge.text("#turn") == "Game over", why="English")
        judge.shot(tmp_path, "over-en")
        t.wait_for(lambda: t.console.facts is not None and t.console.facts.get("gesture") == "over", why="the end")
        time.sleep(0.5)
        player.close()
        player.assert_board_only(code)  # the secrecy property over every message the player's phone got
    target = os.environ.get("TIANHEI_CONSOLE_SHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        for path in shots:
            shutil.copy(path, Path(target) / path.name)
    assert len(shots) == 8 and all(p.stat().st_size > 1000 for p in shots)
