"""A saved, unfinished game found at start-up: resume it only if it is the game the table was asked for.

After a power cut the table resumes the journal's unfinished game. If the table has since been asked for
another game (variant, variant file, options, players, seed, deck, hardware), it does not guess: it names what
differs, and the judge chooses one of two ways forward (:data:`RESUME`, :data:`ABANDON`):

* go on with the saved game under the saved game's own settings (its variant data, players, options and seed
  are all in its journal; the table's configuration is set aside for it), or
* close the saved game (kept in the journal, marked abandoned) and start the new one.

``tianhei run`` and ``tianhei table`` take the choice as ``--resume-saved`` / ``--abandon-saved`` and refuse
without it; the live table asks on the judge's remote (:class:`SavedGameChoice`). Either way nothing crashes
and nothing loops: a table without a choice waits, saying why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from controller.director.identity import GameIdentity
from controller.director.journal import Replay, SqliteJournal
from controller.rules import engine
from controller.rules.setup import GameConfig
from controller.rules.variant import Variant, VariantError, load_variant

RESUME = "resume"
ABANDON = "abandon"
#: The command-line spelling of the two ways forward.
FLAGS = {RESUME: "--resume-saved", ABANDON: "--abandon-saved"}


@dataclass(frozen=True)
class SavedGame:
    """The journal's last game, unfinished."""

    replay: Replay
    #: What differs from the game asked for; empty: the same game (resume it without asking).
    differences: tuple[str, ...]

    @property
    def matches(self) -> bool:
        return not self.differences

    @property
    def config(self) -> GameConfig:
        """The saved game's own set-up (its variant data, players, options, roles), from its journal, with its
        variant file's words."""
        return with_words(engine.fold(self.replay.events[:1]).config)

    @property
    def seed(self) -> int:
        if self.replay.identity is not None:
            return self.replay.identity.seed
        created = self.replay.events[0]
        return int(getattr(created, "seed", 0) or 0)

    def where(self) -> str:
        """Where the saved game stopped, for people: "game 3, night 2, last written 21:04:13"."""
        state = engine.fold(self.replay.events)
        phase = f"{state.phase} {state.night if state.phase == 'night' else state.day}"
        at = time.strftime("%H:%M:%S", time.localtime(self.replay.last_at)) if self.replay.last_at else "?"
        return f"game {self.replay.game}, {phase}, last written {at}"

    def describe(self) -> str:
        """The saved game and what differs, on one line."""
        what = self.replay.identity.summary() if self.replay.identity is not None else "an unnamed game"
        return f"the journal holds an unfinished game ({what}; {self.where()}) that is not the one asked for: " \
               + "; ".join(self.differences)

    def refusal(self) -> str:
        """The command line's message: what differs and the two ways forward."""
        return (f"{self.describe()}. Go on with the saved game under its own settings ({FLAGS[RESUME]}), or "
                f"close it (kept in the journal, marked abandoned) and start the one asked for ({FLAGS[ABANDON]})")


def find_saved(journal: SqliteJournal, asked: GameIdentity, *, ignore: tuple[str, ...] = ()) -> SavedGame | None:
    """The journal's unfinished game compared with the ``asked`` one; None when there is none to resume."""
    replay = journal.replay()
    if replay is None or replay.finished or not replay.events:
        return None
    if replay.identity is None:  # written before journals said what their game is: never resumed blind
        return SavedGame(replay, ("the saved game does not say which game it is (an older Tianhei wrote it)",))
    return SavedGame(replay, tuple(replay.identity.differences(asked, ignore=ignore)))


def abandon(journal: SqliteJournal, saved: SavedGame) -> None:
    """Close the saved game unfinished: it stays in the journal, marked abandoned; the next game is a new one."""
    journal.close_game(saved.replay.game, "abandoned")


class SavedGameDiffers(Exception):
    """The journal's unfinished game is not the one asked for, and nobody has said which way to go."""

    def __init__(self, saved: SavedGame) -> None:
        super().__init__(saved.refusal())
        self.saved = saved


def with_words(config: GameConfig) -> GameConfig:
    """The game's set-up with its variant's words. A journal keeps a variant's rules but not its ``[words]`` (a
    replay needs none, and the seed versions' journals stay as they were), so a game resumed from its journal
    takes them again from the variant's file, as long as the file still holds the same rules: without them the
    W boards' roles would have no voice."""
    variant = config.variant
    if any(variant.words.values()) or not variant.source:
        return config
    builtin = f"controller/variants/{variant.id}.toml"
    try:
        loaded = load_variant(variant.id if variant.source == builtin else variant.source)
    except (VariantError, OSError, UnicodeDecodeError):
        return config
    if loaded.data != variant.data or not loaded.words:
        return config
    return replace(config, variant=_worded(variant, loaded))


def _worded(variant: Variant, loaded: Variant) -> Variant:
    return replace(variant, words=loaded.words)
