"""The table on the real clock: the adapters the configuration names, one asyncio loop, the director.

``tianhei table`` (and the systemd service) land here. The adapter is chosen by the hardware profile the way
gpiozero chooses a pin factory: ``sim`` (a table in memory, shown in the emulator window when there is a
display), ``gpio`` (seats on the Pi's own pins) or ``bus`` (seat nodes on RS-485).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config import Config
from controller.config.decks import load_deck, normalise_uid
from controller.director.bots import TableBots
from controller.director.clock import AsyncioScheduler
from controller.director.director import Director
from controller.director.identity import GameIdentity
from controller.director.journal import SqliteJournal, first_victims, open_journal
from controller.director.lobby import Lobby
from controller.director.saved import ABANDON, RESUME, SavedGame, abandon, find_saved
from controller.director.timing import Timings
from controller.ports import Table, Voice
from controller.rules.setup import GameConfig, configure
from controller.rules.variant import Variant, VariantError, builtin_ids, load_variant

log = logging.getLogger(__name__)


def game_options(config: Config, variant: Variant) -> dict[str, object]:
    """[game] options, plus [timers] vote_window_s as the V2.6 window where the variant has one."""
    options = dict(config.game.options)
    if "vote.window_s" in variant.options and "vote.window_s" not in options:
        options["vote.window_s"] = config.timers.vote_window_s
    return options


def game_config(config: Config, players: int | None = None, journal: SqliteJournal | None = None,
                club: Any = None, members: dict[int, str | None] | None = None) -> GameConfig:
    """The game the config asks for; the history of V2.11 (``first_victim.max_repeat``) from the ``club``'s
    records of this table's latest games (by person: ``members`` is who sits where), or, with no club, from the
    first-night victims in the table's ``journal``."""
    variant = load_variant(config.game.variant)
    n = players or config.game.players
    history = _history(n, journal, club, members)
    return configure(variant, n, game_options(config, variant), history=history)


def _history(players: int, journal: SqliteJournal | None, club: Any,
             members: dict[int, str | None] | None) -> tuple[int, ...]:
    if club is not None:
        return tuple(club.history(members or {}, players))
    return first_victims(journal, players) if journal is not None else ()


def open_club_for(config: Config, journal: SqliteJournal) -> Any:
    """The club around this table ([club] path; None: no club), with the games the table finished before it
    last stopped recorded now (exactly once: controller/club/recorder.py). A club database that cannot be
    opened is said in the log and the table plays on without it: the journal keeps every game."""
    if config.club.path == "":
        return None
    from controller.club.service import club_from_config
    from controller.club.store import ClubError

    try:
        club = club_from_config(config)
        if club is not None:
            for record in club.catch_up(journal):
                log.info("club: recorded game %s (journal game %s)", record.id, record.journal_game)
        return club
    except ClubError as exc:
        log.warning("club: %s; the table plays without the club's records (the journal keeps the games)", exc)
        return None


def _lobby_club(club: Any) -> dict[str, Any]:
    """What the check-in lobby gets from the club: member cards, the last game's points for the remote, the
    evening's standings for the public board."""
    if club is None:
        return {}
    from controller.director.lobby import MemberCard

    def member_card(uid: str) -> MemberCard | None:
        check = club.card(uid)
        return None if check is None else MemberCard(check.member.name, check.words)

    lines = club.last_game_lines()
    facts = {"gesture": "standings", "standings": [{"rank": r["rank"], "member": r["member"], "points": r["points"]}
                                                   for r in club.evening_standings()]}
    return {"member_card": member_card, "remote_lines": lines, "board_facts": facts}


def _with_lines(lobby: dict[str, Any], first: list[Any]) -> dict[str, Any]:
    """The lobby's arguments with ``first`` before the remote's other lines."""
    return {**lobby, "remote_lines": [*first, *lobby.get("remote_lines", ())]} if first else lobby


def timings(config: Config) -> Timings:
    t = config.timers
    optional = {name: getattr(t, name) for name in ("recognition_s", "answer_s", "defence_claim_s", "direction_s",
                                                      "candidacy_s", "badge_s", "tally_s", "first_identity_s")
                if getattr(t, name) is not None}
    return Timings(night_action_s=t.night_action_s, last_words_s=t.last_words_s, speech_s=t.speech_s,
                   defence_s=t.defence_s, reveal_s=t.deal_s, **optional,
                   warnings_s=(max(30.0, t.warning_s), t.warning_s) if t.warning_s < 30 else (t.warning_s,))


def choosable_variants() -> list[Variant]:
    """The built-in variants the judge may choose on the remote; one that does not load is left out (and said)."""
    out = []
    for vid in builtin_ids():
        try:
            out.append(load_variant(vid))
        except VariantError as exc:
            log.warning("variant %s left out of the remote's choices: %s", vid, exc)
    return out


def deck_roles(name: str, decks_dir: Path = Path("decks")) -> dict[str, str]:
    """A deck as card UID -> role, UIDs in the one spelling the readers report. Decks live in ``decks/`` beside
    the config file, where ``tianhei config check`` looks for them."""
    return {normalise_uid(card.uid): card.role for card in load_deck(name, decks_dir=decks_dir).cards}


def has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and \
        os.environ.get("SDL_VIDEODRIVER") != "dummy"


def open_table(config: Config, players: int, clock: Callable[[], float]) -> Table:
    """The table adapter the hardware profile names."""
    profile = config.profile
    adapter = profile.adapter if profile is not None else "sim"
    if adapter == "sim":
        from controller.sim.table import SimTable

        return SimTable(players, clock)
    if adapter == "gpio":
        from controller.gpio.table import open_table as open_gpio

        assert profile is not None
        return open_gpio(profile)
    if adapter == "bus":
        from controller.bus.table import open_bus_table

        assert profile is not None
        try:
            post = asyncio.get_running_loop().call_soon_threadsafe
        except RuntimeError:  # no loop (a tool that polls the bus itself): inputs arrive on the poll thread
            post = None
        # the judge's radio remote is paired by its key ([remote] key_file; none when the table has no judge)
        key_file = Path(config.remote.key_file) if config.table.judge != "none" else None
        return open_bus_table(profile, key_file, post=post)
    raise ValueError(f"hardware adapter {adapter!r} is not one of: sim, gpio, bus")


def voice_terms_notice(pack: str) -> str | None:
    """Said once when a table starts: which voice speaks and under what terms, when it is not free for every
    use (the packs' licence records; a pack that cannot be read is said when it is opened, not here)."""
    from controller.voice.licence import start_notice
    from controller.voice.packs import PackError, load_voice_pack

    try:
        return start_notice(load_voice_pack(pack).terms())
    except PackError:
        return None


def open_voice_for(config: Config, clock: Callable[[], float]) -> Voice:
    """The speaker through pygame; the null voice (silent, still timed) when there is no sound device."""
    from controller.voice.factory import open_voice

    try:
        return open_voice("pygame", config.voice.pack, clock=clock, volume=config.voice.volume)
    except Exception as exc:  # no audio device: the game still runs, with the same timings
        log.warning("no sound (%s); the table runs silent", exc)
        return open_voice("null", config.voice.pack, clock=clock)


@dataclass
class LiveOptions:
    players: int | None = None
    autoplay: str | None = None
    seed: int = 1
    window: bool = True
    #: Seats check in with OK before the deal (director/lobby.py) instead of [game] players.
    checkin: bool = False
    #: Show the public big screen (HDMI, fullscreen) when there is a display and no emulator window uses it.
    board: bool = False
    #: Called once the director has dealt (or resumed): the caller may watch or steer it.
    on_started: Callable[[Director], None] | None = None
    #: Serve the judge's console on a phone (controller/web/) even if [console] enabled is false.
    console: bool = False
    #: Called with the console once it listens (tests read its port and pairing code, as a judge reads the board).
    on_console: Callable[[Any], None] | None = None
    #: Called once the table's adapter is open and the seats are about to show the lobby or the game
    #: (``tianhei serve`` tells systemd READY=1 then).
    on_ready: Callable[[], None] | None = None
    #: One person plays this seat in the window (the bots play the others; the window shows only this seat).
    seat: int | None = None
    #: The simulated table deals a deck of cards (the window's tray; the bots tap theirs).
    cards: bool = False
    #: Gets each line of the game's transcript as soon as it is final (controller/director/transcript.py).
    told: Callable[[Any], None] | None = None
    #: An unfinished saved game that is not the one asked for: saved.RESUME or saved.ABANDON; None: the judge
    #: chooses on the remote (controller/director/saved_choice.py).
    on_saved: str | None = None
    #: The table's games are chosen at check-in (``tianhei serve``), also when this start resumes one: a saved
    #: game is then compared only on what the configuration fixes (hardware, deck, an edited variant file, a
    #: [game] seed), and a closed one is followed by a check-in.
    chosen_at_checkin: bool = False
    #: The seed is drawn afresh for each game (``tianhei serve``): a saved game's seed does not make it another.
    seed_drawn: bool = False
    #: Called with the game's seed once it is settled (a resumed saved game's own), before the game is told.
    on_seed: Callable[[int], None] | None = None


def table_size(config: Config, players: int) -> int:
    """How many seats the table has: the profile's, or (simulated) the game's."""
    profile = config.profile
    if profile is not None and profile.adapter != "sim" and profile.seats:
        return len(profile.seats)
    return players


async def run_live(config: Config, opts: LiveOptions) -> Director:
    loop = asyncio.get_running_loop()
    scheduler = AsyncioScheduler(loop)
    journal, note = open_journal(config.journal.path)
    if note:
        log.warning("%s", note)
    console = server = None
    if opts.console or config.console.enabled:  # the judge's console on a phone: one more remote and board
        from controller.web.hookup import open_console

        console, server = await open_console(config, loop)
        if opts.on_console is not None:
            opts.on_console(console)
    from controller.hall.table import open_link  # the club's hall, when [mqtt] room is set

    hall = open_link(config)
    if hall is not None:
        hall.start()
        if opts.checkin:
            hall.feed.checkin()
        else:
            hall.feed.idle()
    club = open_club_for(config, journal)
    # W boards' and clubs' own lines the pack has not recorded: said as silence without espeak-ng; the judge's
    # remote and console say so before the game (controller/voice/silent_lines.py)
    from controller.voice.silent_lines import table_notice

    silent = table_notice(config.voice.pack, config.game.variant, opts.checkin)
    from controller.screens.views import L10n

    silent_words = [] if silent is None else [L10n(*silent.words())]
    members: dict[int, str | None] = {}
    lang = "en" if config.table.language.startswith("en") else "zh"
    board: Any = None

    def table_for(players: int) -> Table:
        """The table adapter for ``players`` seats, with the phone's console beside the remote if there is one."""
        table = open_table(config, table_size(config, players), loop.time)
        return console.wrap(table) if console is not None else table

    seed = config.game.seed if config.game.seed is not None else opts.seed
    decks_dir = Path(config.source).parent / "decks"
    deck = deck_roles(config.game.deck, decks_dir) if config.game.deck else None
    told_ready = False

    def ready() -> None:
        nonlocal told_ready
        if opts.on_ready is not None and not told_ready:
            told_ready = True
            opts.on_ready()

    asked = game_config(config, opts.players, journal, club)
    # the simulated table's own deck (--cards) follows the seed; a real table deals [game] deck
    # (its cards are the same whatever the seed; the seed says who draws which)
    sim_cards = opts.cards and (config.profile is None or config.profile.adapter == "sim")
    if sim_cards:
        from controller.sessions.session import sim_hands

        deck = sim_hands(asked, seed)[0]
    checkin = opts.checkin or opts.chosen_at_checkin
    # At check-in the seats and the judge choose the players, the variant and its options; a seed nobody fixed
    # is drawn afresh for each game: none of these make a saved game another one.
    ignore: tuple[str, ...] = ("players", "variant", "options", "composition") if checkin else ()
    if config.game.seed is None and opts.seed_drawn:
        ignore += ("seed",)
    saved = find_saved(journal, GameIdentity.of(asked, seed, deck, config.table.hardware), ignore=ignore)
    if saved is not None and not saved.matches:
        log.warning("%s", saved.describe())
        choice = opts.on_saved
        if choice is None:
            ready()  # the table is up and waits for its judge (under systemd: a wait, not a failed start)
            choice = await _judge_chooses(config, saved, loop, scheduler, table_for,
                                          window=opts.window and has_display())
        if choice == ABANDON:
            abandon(journal, saved)
            log.warning("the saved game was closed (kept in the journal, marked abandoned); a new game starts")
            saved = None
        else:
            log.warning("going on with the saved game under its own settings (%s)", saved.where())
    if saved is not None:  # resumed as it was set up: its own variant data, players, options, seed and deck
        gc, seed, deck = saved.config, saved.seed, saved.replay.deck
        table = table_for(gc.players // 2 if gc.variant.live == "both" else gc.players)
    elif checkin:
        table = table_for(20 if config.profile is None or config.profile.adapter == "sim" else 0)
        ready()
        board = _open_board(opts, table, lang)
        joined: asyncio.Future[int] = loop.create_future()
        variant = load_variant(config.game.variant)
        lobby = Lobby(table, scheduler, variant, game_options(config, variant),
                      joined.set_result, judge=config.table.judge != "none", lang=lang,
                      variants=choosable_variants(), board=board, **_with_lines(_lobby_club(club), silent_words))
        if console is not None:
            console.watch_lobby(lobby)
        lobby.start()
        opts.players = await joined
        members = {seat: lobby.members.get(seat) for seat in range(1, opts.players + 1)}
        # the judge may have chosen another variant and other options on the remote's setup page
        gc = configure(lobby.variant, opts.players, lobby.options,
                       history=_history(opts.players, journal, club, members))
    else:
        gc = asked
        table = table_for(gc.players // 2 if gc.variant.live == "both" else gc.players)  # D2 counts card places
    ready()
    hands: dict[int, tuple[str, ...]] = {}
    if sim_cards:  # the simulated table's own deck (tianhei table --cards), dealt by the game's seed
        cards_deck, cards_dealt = sim_hands(gc, seed)
        if saved is None:
            deck = cards_deck  # (at check-in the players and variant were chosen since)
        if deck == cards_deck:  # (a resumed game dealt with other cards: no tray, the bots tap nothing)
            hands = cards_dealt
    if opts.on_seed is not None:
        opts.on_seed(seed)
    # a new game's set-up is written with what it is, so that the next start can tell it from another game
    journal.identity = GameIdentity.of(gc, seed, deck, config.table.hardware)
    journal.deck = deck
    # The game as a judge would tell it (controller/director/transcript.py), from what the speaker really says:
    # the voice is heard inside the D2 place voice, which says a card place as its seat and card.
    from controller.director.transcript import Follower, Transcript
    from controller.screens.numbering import label_for
    from controller.voice.packs import load_voice_pack

    transcript = Transcript(load_voice_pack(config.voice.pack), lang, label=label_for(gc.variant), out=opts.told,
                            variant=gc.variant)
    began = loop.time()
    follower = Follower(transcript, lambda: loop.time() - began, taps=table)
    if club is not None:  # a member card tapped during the deal: "a member card, not a role card" (club/cards.py)
        from controller.club.cards import MemberCardGuard

        table = MemberCardGuard(table, lambda uid: club.store.member_by_card(uid) is not None, scheduler, lang)
    voice: Any = follower.voice(open_voice_for(config, loop.time))
    physical = table
    if gc.variant.live == "both":  # D2: the engine's card places over the physical seats (director/places.py)
        from controller.director.places import PlaceTable, PlaceVoice, check_table

        check_table(gc.variant.id, gc.players)  # the voice counts votes up to 40: at most 20 players
        table = PlaceTable(physical)
        voice = PlaceVoice(voice)
    in_window = opts.window and has_display() and hasattr(physical, "press")
    panel: Any = None  # the window's board panel
    hdmi: Any = board  # the big screen (the lobby's, if it had one), kept drawn
    if opts.board and in_window:  # a panel of the window, drawn by the big screen's own painter
        from controller.board.sim import SimBoard

        board = panel = SimBoard()
    elif board is None:
        board = hdmi = _open_board(opts, physical, lang)
    if console is not None:
        board = console.board_for(board)
    # the disk's waits off the loop: a press shows at once, the room learns it once durable (journal.py)
    journal.start_writer(loop.call_soon_threadsafe)
    director = Director(table, voice, scheduler, gc, journal=journal, timings=timings(config), lang=lang,
                        seed=seed, deck=deck, judge_entry=config.table.judge == "entry", board=board,
                        judge=config.table.judge != "none")  # no judge: players surrender from their seats
    follower.attach(director)
    director.remote_lines.extend(silent_words)
    if console is not None:
        console.watch(director)
    if hasattr(table, "follow"):
        table.follow(director.wants_input, lambda place: director.state is None or place in director.state.alive)
    if club is not None:  # first of all at the end: the club's end note and record, which the hall is then sent
        director.on_over.append(lambda d: _record(club, journal, loop.time()))
    if hall is not None:
        hall.attach(director)  # it watches from outside: the public view of each event, the result, the record
    played = {opts.seat} if opts.seat is not None else set()
    if opts.autoplay:
        from controller.director.places import seat_of
        from controller.sim.play import OtherHands

        hands_of_bots: Any = OtherHands(table, played, seat_of if gc.variant.live == "both" else lambda n: n)
        TableBots(director, hands_of_bots if played else table, opts.autoplay, seed)  # type: ignore[arg-type]
    done = asyncio.Event()
    window_closed = asyncio.Event()
    director.on_over.append(lambda d: done.set())
    tasks: list[asyncio.Task[Any]] = []
    run = getattr(voice, "run", None)
    if run is not None:
        tasks.append(asyncio.create_task(run()))
    if in_window:
        from controller.director.transcript import line
        from controller.sim.play import card_labels

        # the tray: the cards of the seat played, or (nobody's bots tap them) the whole deck face down
        mine = [uid for seat, cards in sorted(hands.items()) if seat in played or not (played or opts.autoplay)
                for uid in cards]
        told = lambda: [line(e, lang) for e in transcript.entries]  # noqa: E731
        title = f"Tianhei - seat {opts.seat}" if opts.seat is not None else "Tianhei table"
        tasks.append(asyncio.create_task(_window(physical, (done, window_closed), seat=opts.seat, board=panel,
                                                 told=told, cards=card_labels(mine), lang=lang, title=title)))
    elif hdmi is not None:
        tasks.append(asyncio.create_task(_keep_drawn(hdmi, done)))
    if hands and opts.autoplay:
        from controller.sim.play import tap_in_turn, untapped

        # a resumed game's deal is in the journal: the bots tap only the cards it does not have (none once dealt)
        to_tap = untapped(hands, saved.replay.cards if saved is not None else None)
        tasks.append(asyncio.create_task(tap_in_turn(physical, to_tap, played)))
    for task in tasks:  # a helper that fails (the window, the voice, the bots' cards) says so and stops the table
        task.add_done_callback(lambda t: _failed(t, done))
    resumed = saved is not None
    if saved is not None:
        director.resume(saved.replay)
    else:
        director.start()
        if club is not None:
            _note_checkin(director, club, journal, members, loop.time)
    if club is not None:  # the table's clock in the journal once a minute: a game's length survives a restart
        club.follow(journal, scheduler, resumed=resumed, over=lambda: director.stage == "over")
    if opts.on_started is not None:
        opts.on_started(director)
    try:
        await done.wait()
        if in_window and director.stage == "over" and not window_closed.is_set():
            await window_closed.wait()  # the end stays on the screen (roles, the nights) until the window is closed
        else:
            await asyncio.sleep(3.0)  # let the ending be heard
    finally:
        for t in tasks:
            t.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await t
        table.stop()
        journal.close()
        if club is not None:
            club.close()
        if server is not None:
            await server.stop()
        if hall is not None:
            await hall.close()
    return director


async def _judge_chooses(config: Config, saved: SavedGame, loop: asyncio.AbstractEventLoop,
                         scheduler: AsyncioScheduler, table_for: Callable[[int], Table], *,
                         window: bool = False) -> str:
    """Ask which way to go with a saved game that is not the one asked for, wherever someone can answer: the
    judge's remote (or the phone's console), the simulator's window (R / A, or the remote's keys in it) and a
    terminal (r / a and Enter). The question and the ways out are printed in the table's language, the flags
    among them. The table waits for the answer (under systemd too: a wait, never a crash and a restart)."""
    from controller.director.saved_choice import SavedGameChoice, question_lines

    table = table_for(saved.config.players // 2 if saved.config.variant.live == "both" else saved.config.players)
    chosen: asyncio.Future[str] = loop.create_future()
    lang = "en" if config.table.language.startswith("en") else "zh"

    def choose(choice: str) -> None:
        if not chosen.done():
            chosen.set_result(choice)

    SavedGameChoice(table, saved, lambda c: scheduler.threadsafe(lambda: choose(c)), lang=lang).start()
    lines = question_lines(saved, lang, window=window, remote=table.remote is not None, terminal=_tty_in())
    print("\n".join(lines), flush=True)
    helpers: list[asyncio.Task[Any]] = []
    if window:
        helpers.append(asyncio.create_task(_choice_window(table, choose, lines, lang)))
    if _tty_in():
        _read_choice_from_terminal(loop, choose)
    try:
        return await chosen
    finally:
        if _tty_in():
            loop.remove_reader(sys.stdin.fileno())
        for helper in helpers:
            helper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await helper
        table.stop()


def _tty_in() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def _read_choice_from_terminal(loop: asyncio.AbstractEventLoop, choose: Callable[[str], None]) -> None:
    """r / a and Enter at the terminal the table was started from."""
    def answer() -> None:
        word = sys.stdin.readline().strip().lower()
        if word[:1] == "r":
            choose(RESUME)
        elif word[:1] == "a":
            choose(ABANDON)

    loop.add_reader(sys.stdin.fileno(), answer)


async def _choice_window(table: Any, choose: Callable[[str], None], lines: list[str], lang: str) -> None:
    """The simulator's window while the saved game's question waits: every seat's screen and the remote (its
    keys work), the question in the strip below, R and A as answers. Closing it changes nothing: the table still
    waits for an answer from the remote or the terminal."""
    from controller.sim.emulator import Emulator

    emulator = Emulator(table, told=lambda: lines, lang=lang, title="Tianhei",
                        keys={"r": lambda: choose(RESUME), "a": lambda: choose(ABANDON)})
    try:
        while emulator.step():
            await asyncio.sleep(0.05)
    finally:
        emulator.close()


def _failed(task: asyncio.Task[Any], done: asyncio.Event) -> None:
    if task.cancelled() or task.exception() is None:
        return
    log.error("the table stops: %s failed", getattr(task.get_coro(), "__qualname__", task.get_name()),
              exc_info=task.exception())
    done.set()


def board_screen() -> tuple[bool, str]:
    """Whether the big screen can be shown here: a desktop's display, or (a Pi without one) the HDMI output
    through SDL's KMS/DRM driver; if not, why."""
    import pygame

    try:
        pygame.display.init()
        driver = pygame.display.get_driver()
    except pygame.error as exc:
        return False, f"no screen to show the public board on ({exc})"
    finally:
        pygame.display.quit()
    if driver in ("dummy", "offscreen"):
        return False, "no screen to show the public board on (no display, no HDMI output SDL can use)"
    return True, ""


def open_board(lang: str) -> Any:
    """The big screen, fullscreen: on a desktop's display, or straight on the HDMI output of a Pi without one
    (SDL's KMS/DRM driver). None, with the reason in the log, when there is no screen to draw on."""
    try:
        from controller.board.pygame_board import PygameBoard

        return PygameBoard(fullscreen=not has_display(), lang=lang)  # on a desktop, a window of its own
    except Exception as exc:  # pygame.error: no video device; the game goes on without the big screen
        log.warning("--board: no screen to show the public board on (%s); the table runs without it", exc)
        return None


async def _keep_drawn(board: Any, done: asyncio.Event) -> None:
    """Draw the board's last facts again twice a second, so the big screen is never blank or frozen between two
    changes (an uncovered window, a display that woke up). Its window closed, or the process told to stop (SDL
    turns SIGTERM and SIGINT into a quit event while it has a display), the table stops; the journal keeps the
    game for the next start."""
    while board.refresh():
        await asyncio.sleep(0.5)
    done.set()


def _open_board(opts: LiveOptions, table: Any, lang: str) -> Any:
    """The public big screen when asked for and no emulator window shows it as a panel (open_board)."""
    if opts.board and not (opts.window and has_display() and hasattr(table, "press")):
        return open_board(lang)
    return None


def _note_checkin(director: Director, club: Any, journal: SqliteJournal, members: dict[int, str | None],
                  clock: Callable[[], float]) -> None:
    """Who sits where goes into the game's journal records once the game is dealt: at once after a digital deal,
    at the first window after a deal with cards."""
    if director.state is not None:
        club.checkin(journal, members, clock(), director.config.variant)
        return
    noted: list[bool] = []

    def first_window(d: Director, _w: Any) -> None:
        if not noted:
            noted.append(True)
            club.checkin(journal, members, clock(), director.config.variant)

    director.listeners.append(first_window)


def _record(club: Any, journal: SqliteJournal, clock: float) -> None:
    from controller.club.store import ClubError

    try:
        for record in club.game_over(journal, clock):
            log.info("club: recorded game %s: %s", record.id, record.winner)
    except ClubError as exc:  # the journal keeps the game; the next start records it
        log.warning("club: %s; the game stays in the journal and is recorded at the next start", exc)


async def _window(table: Any, closed: tuple[asyncio.Event, ...], **panels: Any) -> None:
    """The emulator window, redrawn at 20 frames a second on the same loop (clicks call the table)."""
    from controller.sim.emulator import Emulator

    emulator = Emulator(table, **panels)
    try:
        while emulator.step():
            await asyncio.sleep(0.05)
        for event in closed:  # the window was closed: the table stops (and says so)
            event.set()
    finally:
        emulator.close()
