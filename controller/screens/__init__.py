"""Seat and remote screens: pure view data (:mod:`.views`) rendered with Pillow (:mod:`.render`) in Chinese
or English, with bitmap fonts (:mod:`.fonts`) legible on a 128x64 one-colour OLED at arm's length."""

from controller.screens.canvas import ScreenOverflow
from controller.screens.render import render
from controller.screens.strings import Lang

__all__ = ["Lang", "ScreenOverflow", "render"]
