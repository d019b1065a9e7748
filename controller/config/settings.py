"""``tianhei.toml``: the one configuration file, validated at start.

Every problem is reported with the file, the dotted key and the fix, and all problems are collected before
:class:`~controller.config.errors.ConfigError` is raised. Checks that belong to other parts of the controller are
reached through hooks, so this module does not depend on them and its tests can replace them:

* ``validate_game(variant, options, players)`` -> problems (default: the rules engine's own set-up check);
* ``variant_roles(variant)`` -> the role names a deck may use (default: the rules engine's variant file);
* ``find_pack(name)`` -> the pack folder or raises (default: ``controller.voice.packs.find_pack``);
  with it, ``[voice] commercial = true`` reads the terms of every pack that would speak (its licence records).

The schema is documented in docs/configuration.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from controller.config.errors import ConfigError, Problem, read_toml, suggest, unknown_keys
from controller.config.profile import Profile, load_profile

DEFAULT_FILE = "tianhei.toml"
LANGUAGES = ("zh-CN", "en")
JUDGES = ("remote", "none")

ValidateGame = Callable[[str, Mapping[str, object], int], Iterable[str]]
VariantRoles = Callable[[str], "set[str] | None"]
FindPack = Callable[[str], object]


@dataclass(frozen=True, slots=True)
class TableSection:
    hardware: str = "sim"
    language: str = "zh-CN"
    judge: str = "remote"


@dataclass(frozen=True, slots=True)
class GameSection:
    variant: str = "standard-2.0"
    players: int = 12
    options: Mapping[str, object] = field(default_factory=dict)
    deck: str | None = None
    seed: int | None = None
    #: The club's own ability modules (controller/config/club_abilities.py), resolved; imported while the file is
    #: read, before its variant is checked.
    abilities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VoiceSection:
    pack: str = "zh-CN"
    volume: float = 0.8
    #: The club charges for its evenings: only voices free for every use may speak (the licence records).
    commercial: bool = False


@dataclass(frozen=True, slots=True)
class JournalSection:
    path: str = "var/tianhei.sqlite"


@dataclass(frozen=True, slots=True)
class RemoteSection:
    """The judge's radio remote on the seat bus (``bus`` profiles with ``remote_address``): its pairing key,
    made by ``tianhei remote pair`` and readable by the table's user only. The remote's accepted counters are
    kept beside it (``remote.counter``)."""

    key_file: str = "var/remote.key"


@dataclass(frozen=True, slots=True)
class TimersSection:
    """Deadlines in seconds (RULES C5: every wait has one). ``warning_s`` is the beep before a deadline."""

    deal_s: float = 20.0
    night_action_s: float = 30.0
    last_words_s: float = 60.0
    speech_s: float = 120.0
    defence_s: float = 60.0
    vote_window_s: float = 2.0
    warning_s: float = 10.0
    # The director's other waits; unset means its own default (controller/director/timing.py).
    recognition_s: float | None = None  # partners look at each other (V2.2, V5.2)
    answer_s: float | None = None  # the police's nod or shake stays on their screens (V2.2)
    defence_claim_s: float | None = None  # asking who wants a defence speech (C3)
    direction_s: float | None = None  # the judge picks the speeches' direction (V2.4)
    candidacy_s: float | None = None  # the call to run for sheriff (W10)
    badge_s: float | None = None  # a dying sheriff passes or tears the badge (W10)
    tally_s: float | None = None  # the tally stays on the screens
    first_identity_s: float | None = None  # dual-card: choosing the first card (D1)


@dataclass(frozen=True, slots=True)
class ConsoleSection:
    """The judge's console on a phone (controller/web/, docs/console.md): served on ``host``:``port`` while the
    table runs; ``url`` is the address the board's QR code gives (default: this machine's LAN address).

    HTTPS unless ``tls = false``: with the club's own ``cert`` and ``key`` (PEM files), or else a self-signed
    certificate the table makes once beside its journal and keeps (controller/web/certificate.py)."""

    enabled: bool = False
    host: str = "0.0.0.0"
    port: int = 8080
    url: str | None = None
    tls: bool = True
    cert: str | None = None  # the club's own certificate (PEM); unset: the table's own, beside the journal
    key: str | None = None  # its private key (PEM, no passphrase)
    phones: int = 1  # phones paired at once
    code_ttl_s: float = 300.0  # a pairing code's life
    session_ttl_s: float = 43200.0  # a paired phone's session (an evening)
    revoke_hold_s: float = 3.0  # holding the remote's BACK this long signs every phone out
    #: More names the console answers to (a request for any other ``Host`` gets 421): besides its host, its
    #: ``url``'s name, localhost, this machine's name and ``name.local``, and the address a phone connected to.
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MqttSection:
    """The club's broker (controller/hall/): a table publishes under its ``room`` when one is given; the hall
    service connects as the ``hall`` user. The password is read from ``password_file`` (never written here)."""

    host: str = "127.0.0.1"
    port: int = 1883
    club: str = "club"
    room: str | None = None
    username: str | None = None
    password_file: str | None = None
    outbox: str = "var/outbox.sqlite"
    #: TLS to the broker: unset means on whenever ``host`` is not this machine (the club broker's Wi-Fi listener
    #: takes TLS only), with the broker's certificate checked against ``cafile`` (the club's ``certs/ca.crt``, which
    #: ``tianhei hall broker-files`` writes); ``tls = false`` sends the password in clear.
    tls: bool | None = None
    tls_port: int = 8883
    cafile: str | None = None

    def tls_on(self) -> bool:
        """Whether the link to the broker is TLS: as set, else whenever the broker is on another machine."""
        if self.tls is not None:
            return self.tls
        from controller.hall.broker import is_loopback

        return not is_loopback(self.host)


@dataclass(frozen=True, slots=True)
class HallSection:
    """The hall service (``tianhei hall``): the club's rooms, its web page, its database, its voice."""

    rooms: tuple[Mapping[str, object], ...] = ()
    http_host: str = "127.0.0.1"
    http_port: int = 8088  # the judge's console ([console]) keeps 8080
    db: str = "var/hall.sqlite"
    languages: tuple[str, ...] = ("zh-CN",)
    auto_send: bool = False
    organiser_code: str | None = None
    #: More names the hall's page answers to (a request for any other ``Host`` gets 421): besides ``http_host``,
    #: localhost, this machine's name and ``name.local``, and the address a browser connected to.
    http_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LeagueSection:
    """The league's page (``tianhei league --config``, docs/league.md)."""

    #: More names the league's page answers to (a request for any other ``Host`` gets 421): besides its
    #: ``--host``, localhost, this machine's name and ``name.local``, and the address a browser connected to.
    http_names: tuple[str, ...] = ()


ROOM_KINDS = ("standard", "entry", "training", "recruit")  # V2.13, controller/club/rooms.py


@dataclass(frozen=True, slots=True)
class ClubSection:
    """The club around the table (controller/club, docs/club-records.md): its database, this table's name and
    room kind (V2.13), and the club's own scoring table and level thresholds over the shipped default."""

    #: The club database; unset: club.sqlite beside the journal; "" = no club (games are not recorded, and
    #: V2.11 reads its history from the journal).
    path: str | None = None
    table: str = "table-1"
    room: str = "standard"
    #: The recruit camp admits members up to this level (seed 000: 2級以下, level 2 included).
    recruit_max_level: int = 2
    scoring: Mapping[str, object] = field(default_factory=dict)
    levels: tuple[float, ...] | None = None


@dataclass(frozen=True, slots=True)
class Config:
    table: TableSection
    game: GameSection
    voice: VoiceSection
    journal: JournalSection
    timers: TimersSection
    source: str
    profile: Profile | None = None
    remote: RemoteSection = field(default_factory=RemoteSection)
    console: ConsoleSection = field(default_factory=ConsoleSection)
    mqtt: MqttSection = field(default_factory=MqttSection)
    hall: HallSection = field(default_factory=HallSection)
    club: ClubSection = field(default_factory=ClubSection)
    league: LeagueSection = field(default_factory=LeagueSection)


_SECTIONS: dict[str, type] = {
    "table": TableSection, "game": GameSection, "voice": VoiceSection, "journal": JournalSection,
    "timers": TimersSection, "remote": RemoteSection, "console": ConsoleSection, "mqtt": MqttSection,
    "hall": HallSection, "club": ClubSection, "league": LeagueSection,
}


def rules_validate_game(variant: str, options: Mapping[str, object], players: int) -> list[str]:
    """The rules engine's own check of a game set-up (variant name, options, player count)."""
    from controller.rules.setup import configure
    from controller.rules.variant import VariantError, load_variant

    try:
        configure(load_variant(variant), players, options)
    except VariantError as exc:
        return [str(exc)]
    return []


def rules_variant_roles(variant: str) -> set[str] | None:
    from controller.rules.variant import VariantError, load_variant

    try:
        return set(load_variant(variant).roles)
    except VariantError:
        return None


def voice_find_pack(name: str) -> object:
    from controller.voice.packs import find_pack

    return find_pack(name)


def voice_not_free(name: str) -> list[str]:
    """The packs that would speak with ``name`` (its own prompts and those it borrows) whose voice is not free
    for every use, one line each (empty when all are)."""
    from controller.voice.licence import speaking_lines
    from controller.voice.packs import load_voice_pack

    terms = load_voice_pack(name).terms()
    return speaking_lines([t for t in terms if t[2] and (t[1] is None or not t[1].free)])


class _Checker:
    def __init__(self, file: str) -> None:
        self.file = file
        self.problems: list[Problem] = []

    def report(self, key: str, message: str, fix: str = "") -> None:
        self.problems.append(Problem(self.file, key, message, fix))

    def section(self, data: Mapping[str, Any], name: str) -> dict[str, Any]:
        raw = data.get(name, {})
        if not isinstance(raw, Mapping):
            self.report(name, f"[{name}] must be a table", f"write it as a [{name}] section")
            return {}
        allowed = [f.name for f in fields(_SECTIONS[name])]
        self.problems += unknown_keys(raw, allowed, name, self.file)
        return {k: v for k, v in raw.items() if k in allowed}

    def choice(self, values: dict[str, Any], section: str, key: str, choices: tuple[str, ...]) -> None:
        if key in values and values[key] not in choices:
            value = values.pop(key)
            self.report(f"{section}.{key}", f"{value!r} is not one of {', '.join(choices)}",
                        suggest(str(value), choices))

    def typed(self, values: dict[str, Any], section: str, key: str, kind: type | tuple[type, ...],
              example: str) -> None:
        if key in values and (not isinstance(values[key], kind) or isinstance(values[key], bool)):
            value = values.pop(key)
            self.report(f"{section}.{key}", f"{value!r} has the wrong type", f"write it like {example}")


def _load_club_abilities(c: _Checker, game: dict[str, Any], file_path: Path) -> None:
    """``[game] abilities``: import the club's own ability modules now, before the variant (which may use them)
    is checked; a module that cannot be used is a problem of this file, named with the module's path."""
    from controller.config import club_abilities

    try:
        files = club_abilities.paths_of(game, file_path.parent, c.file)
        club_abilities.load(files)
    except club_abilities.AbilityModuleError as exc:
        game.pop(club_abilities.KEY, None)
        c.report(f"game.{club_abilities.KEY}", f"{exc.file}: {exc.problem}", exc.fix)
        return
    if files:
        game[club_abilities.KEY] = tuple(str(p) for p in files)


def load(path: str | Path | None = None, *, validate_game: ValidateGame | None = rules_validate_game,
         variant_roles: VariantRoles | None = rules_variant_roles, find_pack: FindPack | None = voice_find_pack,
         decks_dir: Path | None = None, check_remote_key: bool = True, check_broker_ca: bool = True) -> Config:
    """Read and validate a configuration file (default ``tianhei.toml`` in the working directory).

    A missing default file means "all defaults"; a missing file that was named is an error. Pass ``None`` for a
    hook to skip that check; ``check_remote_key=False`` skips the check of the remote's pairing key (for the
    command that makes it); ``check_broker_ca=False`` the check of the broker's CA file (for the command that
    makes it, ``tianhei hall broker-files``)."""
    explicit = path is not None
    file_path = Path(path) if path is not None else Path(DEFAULT_FILE)
    file = str(file_path)
    if not file_path.is_file():
        if explicit:
            raise ConfigError([Problem(file, "", "no such configuration file",
                                       "check the path, or run without one to use the defaults")])
        data: Mapping[str, Any] = {}
    else:
        data = read_toml(file_path, file)
    c = _Checker(file)
    c.problems += unknown_keys(data, _SECTIONS, "", file)

    table = c.section(data, "table")
    c.typed(table, "table", "hardware", str, 'hardware = "compact-8"')
    c.choice(table, "table", "language", LANGUAGES)
    c.choice(table, "table", "judge", JUDGES)

    game = c.section(data, "game")
    c.typed(game, "game", "variant", str, 'variant = "standard-2.0"')
    c.typed(game, "game", "players", int, "players = 12")
    c.typed(game, "game", "options", dict, 'options = { tie = "club" }')
    c.typed(game, "game", "deck", str, 'deck = "club-red"')
    c.typed(game, "game", "seed", int, "seed = 42")
    if "players" in game and not 2 <= game["players"] <= 20:
        c.report("game.players", f"{game.pop('players')} players cannot play", "use 2..20 (the judge is not counted)")
    _load_club_abilities(c, game, file_path)

    voice = c.section(data, "voice")
    c.typed(voice, "voice", "pack", str, 'pack = "zh-CN"')
    c.typed(voice, "voice", "volume", (int, float), "volume = 0.8")
    if "volume" in voice and not 0.0 <= voice["volume"] <= 1.0:
        c.report("voice.volume", f"volume {voice.pop('volume')} is out of range", "use 0.0..1.0")
    if "commercial" in voice and not isinstance(voice["commercial"], bool):
        c.report("voice.commercial", f"{voice.pop('commercial')!r} is not true or false",
                 "commercial = true when the club charges for its evenings, else false")

    journal = c.section(data, "journal")
    c.typed(journal, "journal", "path", str, 'path = "var/tianhei.sqlite"')

    remote = c.section(data, "remote")
    c.typed(remote, "remote", "key_file", str, 'key_file = "/var/lib/tianhei/remote.key"')

    timers = c.section(data, "timers")
    for key in list(timers):
        c.typed(timers, "timers", key, (int, float), f"{key} = 30")
        if key in timers and timers[key] <= 0:
            c.report(f"timers.{key}", f"{timers.pop(key)} s is no deadline", "every wait needs a positive deadline (C5)")

    console = c.section(data, "console")
    if "enabled" in console and not isinstance(console["enabled"], bool):
        c.report("console.enabled", f"{console.pop('enabled')!r} is not true or false", "enabled = true")
    c.typed(console, "console", "host", str, 'host = "0.0.0.0"')
    c.typed(console, "console", "url", str, 'url = "https://tianhei.local:8080/"')
    c.typed(console, "console", "port", int, "port = 8080")
    c.typed(console, "console", "phones", int, "phones = 1")
    for key in ("code_ttl_s", "session_ttl_s", "revoke_hold_s"):
        c.typed(console, "console", key, (int, float), f"{key} = 60")
        if key in console and console[key] <= 0:
            c.report(f"console.{key}", f"{console.pop(key)} s is no time", "give a positive number of seconds")
    if "port" in console and not 0 <= console["port"] <= 65535:
        c.report("console.port", f"port {console.pop('port')} does not exist", "use 1..65535 (8080 is usual)")
    if "phones" in console and not 1 <= console["phones"] <= 10:
        c.report("console.phones", f"{console.pop('phones')} phones", "use 1..10")
    _check_console_tls(c, console)
    _names(c, console, "console", "names")
    mqtt, hall = _check_club(c, data)
    if check_broker_ca:
        _check_broker_ca(c, mqtt)

    club = c.section(data, "club")
    c.typed(club, "club", "path", str, 'path = "var/club.sqlite" (or "" for no club)')
    c.typed(club, "club", "table", str, 'table = "room-3"')
    c.choice(club, "club", "room", ROOM_KINDS)
    c.typed(club, "club", "recruit_max_level", int, "recruit_max_level = 2")
    if "recruit_max_level" in club and not 1 <= club["recruit_max_level"] <= 99:
        c.report("club.recruit_max_level", f"level {club.pop('recruit_max_level')} is no level", "use 1 or more")
    c.typed(club, "club", "scoring", dict, "[club.scoring.standard] win = { killers = 3 }")
    c.typed(club, "club", "levels", list, "levels = [0, 15, 50, 120, 250]")
    if "scoring" in club or "levels" in club:
        _check_club_scoring(c, club, gm_variant=str(game.get("variant") or GameSection().variant), roles=variant_roles)
    if "levels" in club:
        club["levels"] = tuple(club["levels"])
    league = c.section(data, "league")
    _names(c, league, "league", "http_names")

    sections = (TableSection(**table), GameSection(**game), VoiceSection(**voice), JournalSection(**journal),
                TimersSection(**timers))
    tbl, gm, vc, jn, tm = sections
    if tm.warning_s >= min(tm.speech_s, tm.night_action_s):
        c.report("timers.warning_s", f"the warning beep ({tm.warning_s} s) comes before the wait even starts",
                 "make warning_s shorter than every deadline")

    rm = RemoteSection(**remote)
    profile = _check_profile(c, tbl, gm, file_path)
    if check_remote_key and profile is not None and tbl.judge != "none":
        _check_remote_key(c, profile, rm)
    if validate_game is not None and "variant" not in {p.key.split(".")[-1] for p in c.problems}:
        for message in validate_game(gm.variant, gm.options, gm.players):
            c.report("game", message, "see `tianhei variants` for variants, options and player counts")
    if gm.deck is not None:
        _check_deck(c, gm, variant_roles, decks_dir or file_path.parent / "decks")
    if find_pack is not None:
        try:
            find_pack(vc.pack)
        except Exception as exc:  # the voice module's own error type; any failure means "not usable"
            c.report("voice.pack", f"voice pack {vc.pack!r} is missing: {exc}",
                     "give the name of an installed pack (zh-CN, en) or a folder holding manifest.toml")
        else:
            if vc.commercial:
                _check_voice_terms(c, vc.pack)
    if c.problems:
        raise ConfigError(c.problems)
    return Config(tbl, gm, vc, jn, tm, file, profile, rm, ConsoleSection(**console), mqtt, hall,
                  ClubSection(**club), LeagueSection(**league))


def _check_voice_terms(c: _Checker, pack: str) -> None:
    """``[voice] commercial = true``: every voice that would speak must be free for every use."""
    try:
        restricted = voice_not_free(pack)
    except Exception as exc:  # the voice module's own error types: a manifest that cannot be read
        c.report("voice.pack", f"voice pack {pack!r} cannot be read: {exc}", "fix its manifest.toml")
        return
    for line in restricted:
        c.report("voice.commercial", f"the club charges for its evenings, and {line}",
                 'choose pack = "en" (espeak-ng), a zh-CN pack built with `tianhei sounds build zh-CN --voice '
                 "espeak`, or the club's own recordings (every prompt recorded)")


def _names(c: _Checker, values: dict[str, Any], section: str, key: str) -> None:
    """A list of host names a web server answers to (``names = ["tianhei.local"]``)."""
    if key not in values:
        return
    names = values.pop(key)
    if not isinstance(names, list) or not all(isinstance(n, str) and n.strip() and " " not in n.strip()
                                              for n in names):
        c.report(f"{section}.{key}", f"{names!r} is not a list of host names",
                 f'{key} = ["tianhei.local", "192.168.1.20"]')
    else:
        values[key] = tuple(n.strip() for n in names)


def _check_club(c: _Checker, data: Mapping[str, Any]) -> tuple[MqttSection, HallSection]:
    """[mqtt] and [hall] (controller/hall/): names that are topic segments, ports, the rooms' list."""
    from controller.hall.topics import TopicError, check_name

    mqtt = c.section(data, "mqtt")
    for key in ("host", "club", "room", "username", "password_file", "outbox", "cafile"):
        c.typed(mqtt, "mqtt", key, str, f'{key} = "..."')
    if "tls" in mqtt and not isinstance(mqtt["tls"], bool):
        c.report("mqtt.tls", f"{mqtt.pop('tls')!r} is not true or false", "tls = true")
    for key in ("club", "room"):
        if key in mqtt:
            try:
                check_name(key, mqtt[key])
            except TopicError as exc:
                mqtt.pop(key)
                c.report(f"mqtt.{key}", str(exc), f'write it like {key} = "{"redclub" if key == "club" else "3"}"')
    hall = c.section(data, "hall")
    for key, kind, example in (("mqtt", "port", "port = 1883"), ("mqtt", "tls_port", "tls_port = 8883"),
                               ("hall", "http_port", "http_port = 8088")):
        values = mqtt if key == "mqtt" else hall
        c.typed(values, key, kind, int, example)
        if kind in values and not 1 <= values[kind] <= 65535:
            c.report(f"{key}.{kind}", f"{values.pop(kind)} is not a port", "use 1..65535")
    for key in ("http_host", "db", "organiser_code"):
        c.typed(hall, "hall", key, str, f'{key} = "..."')
    if "auto_send" in hall and not isinstance(hall["auto_send"], bool):
        c.report("hall.auto_send", f"{hall.pop('auto_send')!r} is not true or false", "auto_send = true")
    if "languages" in hall:
        langs = hall.pop("languages")
        if not isinstance(langs, list) or not langs or any(x not in LANGUAGES for x in langs):
            c.report("hall.languages", f"{langs!r} is not a list of {', '.join(LANGUAGES)}",
                     'languages = ["zh-CN", "en"]')
        else:
            hall["languages"] = tuple(langs)
    if "rooms" in hall:
        rooms, good = hall.pop("rooms"), []
        if not isinstance(rooms, list):
            rooms = [rooms]
        for i, room in enumerate(rooms):
            where = f"hall.rooms[{i}]"
            if not isinstance(room, dict) or not isinstance(room.get("id"), str):
                c.report(where, f"{room!r} is not a room", '{ id = "3", seats = 16, kind = "standard" }')
                continue
            problems = [k for k in room if k not in ("id", "seats", "kind")]
            try:
                check_name("room", room["id"])
            except TopicError as exc:
                c.report(f"{where}.id", str(exc), 'id = "3"')
                continue
            if problems:
                c.report(where, f"unknown keys {problems}", "a room has id, seats and kind")
            elif not isinstance(room.get("seats", 16), int) or not 2 <= room.get("seats", 16) <= 20:
                c.report(f"{where}.seats", f"{room.get('seats')!r} seats cannot play", "use 2..20")
            elif room.get("kind", "standard") not in ROOM_KINDS:
                c.report(f"{where}.kind", f"{room.get('kind')!r} is not a room kind", suggest(str(room.get("kind")),
                                                                                              ROOM_KINDS))
            else:
                good.append(dict(room))
        if len({r["id"] for r in good}) != len(good):
            c.report("hall.rooms", "two rooms have the same id", "give each room its own id")
        hall["rooms"] = tuple(good)
    _names(c, hall, "hall", "http_names")
    return MqttSection(**mqtt), HallSection(**hall)


def _check_broker_ca(c: _Checker, mqtt: MqttSection) -> None:
    """A broker on another machine is reached over TLS, which needs the club's CA to check it: name a missing
    one now, not at the first game's end."""
    if not mqtt.tls_on():
        return
    fix = ("copy certs/ca.crt from the broker's folder (tianhei hall broker-files wrote it) here and write "
           'cafile = "/etc/tianhei/mqtt/ca.crt" (or tls = false to send the password in clear, docs/security.md)')
    if mqtt.cafile is None:
        c.report("mqtt.cafile", f"the broker at {mqtt.host} is reached over TLS and its certificate must be checked "
                                "against the club's CA, which is not given", fix)
    elif not Path(mqtt.cafile).is_file():
        c.report("mqtt.cafile", f"{mqtt.cafile}: no such file", fix)


def _check_console_tls(c: _Checker, console: dict[str, Any]) -> None:
    """[console] tls, cert and key: both files or neither, readable, a certificate and its own key (checked now,
    not when the first phone connects)."""
    if "tls" in console and not isinstance(console["tls"], bool):
        c.report("console.tls", f"{console.pop('tls')!r} is not true or false",
                 "tls = true (HTTPS, the default) or tls = false (plain HTTP)")
    for name in ("cert", "key"):
        c.typed(console, "console", name, str, f'{name} = "/etc/tianhei/console-{name}.pem"')
    scheme = "https" if console.get("tls", True) else "http"
    url = console.get("url")
    if isinstance(url, str) and not url.startswith(f"{scheme}://"):
        console.pop("url")
        c.report("console.url", f"{url!r} does not start with {scheme}:// (the console serves "
                 f"{'HTTPS' if scheme == 'https' else 'plain HTTP, tls = false'})",
                 f'write it like url = "{scheme}://tianhei.local:8080/"')
    cert, key = console.get("cert"), console.get("key")
    if cert is None and key is None:
        return
    if console.get("tls", True) is False:
        c.report("console.cert" if cert is not None else "console.key", "cert and key are given but tls = false",
                 "remove tls = false to serve HTTPS with them, or remove cert and key")
        return
    if cert is None or key is None:
        missing = "cert" if cert is None else "key"
        console.pop("cert", None)
        console.pop("key", None)
        c.report(f"console.{missing}", f"console.{'key' if missing == 'cert' else 'cert'} is given without "
                 f"console.{missing}", "give both cert and key, or neither (the table then makes its own)")
        return
    from controller.web.certificate import check_pair

    problems = check_pair(Path(cert), Path(key))
    for which, message, fix in problems:
        c.report(f"console.{which}", message, fix)
    if problems:
        console.pop("cert", None)
        console.pop("key", None)


def _check_club_scoring(c: _Checker, club: dict[str, Any], gm_variant: str, roles: VariantRoles | None) -> None:
    """[club.scoring] and [club.levels] through the club's own parser (controller/club/scoring.py)."""
    from controller.club.scoring import parse_scoring

    names: set[str] | None = None
    if roles is not None:
        from controller.rules.variant import builtin_ids

        names = set(roles(gm_variant) or ())
        for vid in builtin_ids():  # a club's table may name the roles of any version it plays
            names |= roles(vid) or set()
    _, problems = parse_scoring(club.get("scoring", {}), club.get("levels"), names)
    for key, message, fix in problems:
        c.report(f"club.{key}", message, fix)
    if problems:
        club.pop("scoring", None)
        club.pop("levels", None)


def _check_profile(c: _Checker, table: TableSection, game: GameSection, file_path: Path) -> Profile | None:
    try:
        profile = load_profile(table.hardware, relative_to=file_path.parent)
    except ConfigError as exc:
        for problem in exc.problems:
            key = problem.key if problem.file != c.file else "table.hardware"
            c.problems.append(Problem(problem.file, key or "table.hardware", problem.message, problem.fix))
        return None
    if game.players > len(profile.seats):
        c.report("game.players", f"{game.players} players but hardware {profile.name!r} has {len(profile.seats)} seats",
                 "lower players or choose a profile with more seats")
    return profile


def _check_deck(c: _Checker, game: GameSection, variant_roles: VariantRoles | None, decks_dir: Path) -> None:
    from controller.config.decks import load_deck

    assert game.deck is not None
    roles = variant_roles(game.variant) if variant_roles is not None else None
    try:
        load_deck(game.deck, roles=roles, decks_dir=decks_dir)
    except ConfigError as exc:
        c.report("game.deck", f"deck {game.deck!r} cannot be used", "; ".join(str(p) for p in exc.problems))


def _check_remote_key(c: _Checker, profile: Profile, remote: RemoteSection) -> None:
    """A bus table with a remote needs its pairing key, or the remote is refused at the table (docs/security.md)."""
    if profile.adapter != "bus" or profile.bus is None or profile.bus.remote_address is None:
        return
    from controller.bus.pairing import PairingError, load_key

    try:
        load_key(Path(remote.key_file))
    except PairingError as exc:
        c.report("remote.key_file", str(exc),
                 'or set [table] judge = "none" for a table without the judge\'s remote')
