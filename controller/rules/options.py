"""Every rule option the engine understands, named after its RULES ID.

A variant file offers a subset of these (its ``[options]`` table gives the subset and its defaults); a user sets
them with ``--option KEY=VALUE`` or ``[game] options`` in the config. Search this file for a RULES ID (say
``V2.7``) to find the option that chooses between the seeds' readings of that rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

OptionValue = bool | int | float | str


@dataclass(frozen=True, slots=True)
class OptionSpec:
    key: str
    rule: str
    kind: type  # bool, int, float or str
    default: OptionValue
    help: str
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None

    def parse(self, raw: object) -> OptionValue:
        """Turn a raw value (a TOML value, or a command-line string) into this option's type, or raise
        ValueError with a message that names the option and the allowed values."""
        value: OptionValue
        if self.kind is bool:
            if isinstance(raw, bool):
                value = raw
            elif isinstance(raw, str) and raw.lower() in ("true", "yes", "on", "1", "false", "no", "off", "0"):
                value = raw.lower() in ("true", "yes", "on", "1")
            else:
                raise ValueError(f"option {self.key!r} ({self.rule}) takes true or false, not {raw!r}")
        elif self.kind is int:
            try:
                if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                    raise ValueError
                value = int(raw)  # type: ignore[call-overload]
            except (TypeError, ValueError):
                raise ValueError(f"option {self.key!r} ({self.rule}) takes a whole number, not {raw!r}") from None
        elif self.kind is float:
            try:
                if isinstance(raw, bool):
                    raise ValueError
                value = float(raw)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ValueError(f"option {self.key!r} ({self.rule}) takes a number, not {raw!r}") from None
        else:
            value = str(raw)
            if self.choices and value not in self.choices:
                raise ValueError(
                    f"option {self.key!r} ({self.rule}) takes one of {', '.join(self.choices)}; not {raw!r}"
                )
        if not isinstance(value, (bool, str)) and (
            (self.minimum is not None and value < self.minimum)
            or (self.maximum is not None and value > self.maximum)
        ):
            raise ValueError(
                f"option {self.key!r} ({self.rule}) must be between {self.minimum:g} and {self.maximum:g}, "
                f"not {raw!r}"
            )
        return value


def _opt(key: str, rule: str, default: OptionValue, help: str, choices: tuple[str, ...] = (),
         minimum: float | None = None, maximum: float | None = None) -> OptionSpec:
    return OptionSpec(key, rule, type(default), default, help, choices, minimum, maximum)


#: The registry. Each entry's help says which seed reading each value is.
OPTIONS: Mapping[str, OptionSpec] = {
    spec.key: spec
    for spec in (
        _opt("roles", "V2.1", "003",
             "role table: 003 = seed 003 (8-10: 2+2, 11-14: 3+3, 15-16: 4+4), 004 = seed 004 (11-16 only)",
             ("003", "004")),
        _opt("win", "V2.9", "club",
             "club: all civilians dead is a draw; civilians_lose: killers also win by killing all civilians; "
             "police_only: killers win only when all police are dead", ("club", "civilians_lose", "police_only")),
        _opt("lastwords", "V2.3", "quota",
             "quota: the first N to die speak, every death uses a place, also one without words (V2.3); "
             "killer_silent: night victims and executed good players speak, executed killers never (V2.8); all: "
             "every dead player speaks once (V1.3); first_night: the first night's dead and everyone voted out or "
             "shot by day, not the night's dead after night 1 (W12)",
             ("quota", "killer_silent", "all", "first_night")),
        _opt("lastwords.quota", "V2.3", 0,
             "the last-words quota N; 0 = the variant's default (police count in 2.0, killers in 3.0)", (), 0, 20),
        _opt("speech.any_direction", "V2.4", False,
             "the judge picks the direction of the speeches (from either neighbour of the victim)"),
        _opt("defence.suspects", "C3", False,
             "after the speeches, players who feel suspected may claim a short defence speech"),
        _opt("vote", "V2.5", "reverse",
             "reverse: calls start from the last speaker, in reverse speech order (003); from_victim: calls "
             "start at the victim's right-hand neighbour (004)", ("reverse", "from_victim")),
        _opt("vote.window_s", "V2.6", 2.0,
             "seconds after a call ends in which a raised hand counts; later hands are follow-votes (invalid)",
             (), 0.1, 30.0),
        _opt("tie", "V2.7", "club",
             "club: tied speak, revote; any second tie (also among fewer players) -> others speak, revote; a third "
             "tie is a draw. revote: revote, then defence and revote until decided. debate_first: tied debate, "
             "then revote. top2: every vote has two rounds, the top two (or more) debate, then a revote decides. "
             "others_revote (W13): the tied speak again and the other players vote among them",
             ("club", "revote", "debate_first", "top2", "others_revote")),
        _opt("tie.limit", "V2.7", 5,
             "Decision: after this many revotes that still tie, nobody is voted out that day (revote, "
             "debate_first, top2), so that a game always ends", (), 1, 50),
        _opt("win.all", "W14", False,
             "false: 屠边, the werewolves win when every villager or every god is dead (decision); true: 屠城, they "
             "must kill the whole good side (the variant's [win_tables.all])"),
        _opt("sheriff", "W10", False,
             "a sheriff is elected on day 1, before the night's deaths are told; the sheriff's vote counts 1.5, the "
             "sheriff chooses the speeches' direction and speaks last, and passes or tears the badge on dying"),
        _opt("checks", "V2.10", 0, "police checks per game; 0 = unlimited", (), 0, 50),
        _opt("first_night", "V2.10", "kill",
             "kill: the first night has kill and check; recognition: the first night is recognition only, "
             "followed by a day-one blind push (生推)", ("kill", "recognition")),
        _opt("first_victim.max_repeat", "V2.11", 0,
             "a seat may be the first-night victim at most N games in a row (004 §5.8: 1, standard-2.0's default; "
             "000 supplement 3: 2); 0 = no limit. The table takes the history from its journal (tianhei "
             "simulate/run: --history); after a recognition-only first night (V2.10) the rule binds the first "
             "kill, on night 2", (), 0, 10),
        _opt("quiet_night", "V3.4", "day",
             "after a night with no deaths (遊戲直接進入下一輪, 000/001 3.0): day = the day is played as usual, "
             "nobody gives last words; next_night = the day is skipped and the next night falls",
             ("day", "next_night")),
        _opt("surrender", "V2.11", True,
             "a non-civilian whose own side is down to its last survivor may surrender; the other side wins"),
        _opt("killers.selfkill", "V2.12", True,
             "killers may kill themselves or each other, by a strict majority of the living killers only"),
        _opt("needle.no_save_from_shot", "V4.5", False,
             "false (decision): a needle saves from one lethal attack, a player both killed and shot dies; true "
             "(the seed's literal sentence): a needle never saves from a shot"),
        _opt("dual.police_killer", "D3", "swap",
             "police and killer dealt to one player: swap (the judge swaps the killer card with another hand's "
             "card at the deal) or choose (the player keeps one, as the first identity; the other becomes a "
             "civilian)", ("swap", "choose")),
        _opt("witch.self_save", "W6", "first_night",
             "when the witch may save herself with the antidote: never, first_night (decision) or always",
             ("never", "first_night", "always")),
        _opt("guard.same_save", "W7", "dies",
             "a victim both guarded and saved by the witch: dies (同守同救, decision) or lives", ("dies", "lives")),
        _opt("group_tie", "C6", "forfeit",
             "a group still split at the deadline forfeits its action (forfeit) or one tied choice is taken at "
             "random (random)", ("forfeit", "random")),
    )
}


def parse_assignment(text: str) -> tuple[str, str]:
    """Split a command-line ``KEY=VALUE``; raise ValueError with the expected form."""
    if "=" not in text:
        raise ValueError(f"expected KEY=VALUE, got {text!r} (for example --option tie=revote)")
    key, _, value = text.partition("=")
    return key.strip(), value.strip()
