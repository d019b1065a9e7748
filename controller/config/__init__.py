"""Configuration: ``tianhei.toml`` (:func:`load`), hardware profiles and decks, validated with errors that name
the file, the key and the fix (:class:`ConfigError`)."""

from controller.config.errors import ConfigError, Problem
from controller.config.settings import Config, load

__all__ = ["Config", "ConfigError", "Problem", "load"]
