"""Debian's headless Chromium driven by Selenium, as the tests that look at a page in a real browser open it
(the hall's page, the league's page): a fixed window and scale so that their screenshots compare run to run."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@contextlib.contextmanager
def headless_chromium(lang: str = "zh-CN", size: str = "1280,860") -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--lang={lang}",
                f"--window-size={size}", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def shot(driver: Any, folder: Path, name: str) -> Path:
    """A screenshot into ``folder``, and a copy into $TIANHEI_SCREENSHOTS when it is set (to look at, and for
    the docs' pictures)."""
    path = folder / name
    driver.save_screenshot(str(path))
    extra = os.environ.get("TIANHEI_SCREENSHOTS")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(extra) / name)
    return path
