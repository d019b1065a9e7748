"""A scripted club evening on the simulated table (``tianhei evening``): members check in with their cards,
games are played back to back by bots through the director, the judge ejects one player, gives one penalty
point and accepts one surrender, and every game is recorded, scored and ranked.

It is the issue's "done when" made runnable, and it walks the path a club walks: the check-in lobby with member
cards (director/lobby.py), the deal with role cards (a member card tapped during it changes nothing,
club/cards.py), the director and its journal, the club's catch-up recording (club/recorder.py), the first-victim
history of V2.11 from the records, the standings on the public board and the last game's points on the remote.

The evening is resumable: killed at any moment (``kill -9`` in the middle of recording included), it starts
again where the journal says: an unfinished game resumes, a finished game not yet recorded is recorded, and the
evening goes on until it has its number of games.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from controller.board.sim import SimBoard
from controller.club.cards import MemberCardGuard
from controller.club.recorder import CrashPoint
from controller.club.scoring import score
from controller.club.service import Club
from controller.director.bots import TableBots
from controller.director.clock import VirtualScheduler
from controller.director.director import Director, Window
from controller.director.journal import SqliteJournal, open_journal
from controller.director.lobby import Lobby, MemberCard
from controller.director.timing import Timings
from controller.ports import Button, RemoteKey
from controller.rules.events import GameCreated
from controller.rules.setup import configure
from controller.rules.variant import load_variant
from controller.sessions.session import sim_hands
from controller.sim.table import SimTable
from controller.voice.null_voice import NullVoice
from controller.voice.packs import load_voice_pack

#: The evening's members when the club has none yet: name, member card UID, the level the club gave them.
DEMO_MEMBERS: tuple[tuple[str, str, int], ...] = (
    ("Ming", "c1ab0001", 1), ("Hua", "c1ab0002", 1), ("Lei", "c1ab0003", 1), ("Fang", "c1ab0004", 1),
    ("Jun", "c1ab0005", 1), ("Yan", "c1ab0006", 1), ("Tao", "c1ab0007", 1), ("Li", "c1ab0008", 1),
    ("Bo", "c1ab0009", 1), ("Qing", "c1ab000a", 3), ("Wei", "c1ab000b", 1),
)


@dataclass
class Plan:
    games: int = 6
    players: int = 12
    variant: str = "standard-2.0"
    policy: str = "heuristic"
    seed: int = 1
    #: The evening's judge: a penalty point in this game (V2.11 §5.4), an ejection in that one (§5.15), and a
    #: surrender accepted from this game on, the first time a side is down to its last killer or police.
    penalty_game: int = 1
    eject_game: int = 2
    surrender_from: int = 3
    #: Seats whose players check in as guests (OK, no card); the others tap member cards.
    guests: tuple[int, ...] = (12,)


@dataclass
class GameReport:
    journal_game: int
    winner: str
    reason: str
    points: list[dict[str, Any]]
    judge: list[str] = field(default_factory=list)


@dataclass
class EveningReport:
    games: list[GameReport] = field(default_factory=list)
    standings: list[dict[str, Any]] = field(default_factory=list)
    board: list[dict[str, object]] = field(default_factory=list)
    remote_lines: list[tuple[Any, ...]] = field(default_factory=list)
    kept_cards: list[tuple[int, str]] = field(default_factory=list)


def ensure_members(club: Club) -> None:
    """The demo members (only those not in the club yet)."""
    for name, card, level in DEMO_MEMBERS:
        if club.store.member(name) is None and club.store.member_by_card(card) is None:
            club.store.add_member(name, card, level)


def finished_games(journal: SqliteJournal) -> int:
    return sum(1 for g in journal.games() if (r := journal.replay(g)) is not None and r.finished)


class Evening:
    def __init__(self, club: Club, journal_path: Path, plan: Plan, *, lang: str = "en",
                 say: Callable[[str], None] = print, crash_point: CrashPoint | None = None) -> None:
        self.club = club
        self.journal_path = journal_path
        self.plan = plan
        self.lang = lang
        self.say = say
        self.crash_point = crash_point
        self.report = EveningReport()

    def run(self) -> EveningReport:
        ensure_members(self.club)
        journal, note = open_journal(self.journal_path)
        if note:
            self.say(note)
        try:
            for record in self.club.catch_up(journal, self.crash_point):
                self.say(f"recorded game {record.id} (journal game {record.journal_game}), which ended before "
                         f"the table stopped")
            while True:
                replay = journal.replay()
                unfinished = replay is not None and not replay.finished and bool(replay.events)
                done = finished_games(journal)
                if done >= self.plan.games and not unfinished:
                    break
                self._game(journal, done + 1, resume=unfinished)
        finally:
            journal.close()
        self.report.standings = self.club.evening_standings()
        return self.report

    # ---- one game -----------------------------------------------------------------------------------------
    def _game(self, journal: SqliteJournal, number: int, *, resume: bool) -> None:
        plan = self.plan
        clock = VirtualScheduler()
        variant = load_variant(plan.variant)
        members: dict[int, str | None] = {}
        if resume:
            replay = journal.replay()
            created = replay.events[0] if replay is not None else None
            players = created.players if isinstance(created, GameCreated) else plan.players
            self.say(f"game {number}: resuming the game the table was playing when it stopped")
        else:
            players, members = self._checkin(clock, variant, number)
            seated = ", ".join(f"{name} {seat}" for seat, name in members.items() if name)
            guests = [seat for seat, name in members.items() if not name]
            self.say(f"game {number}: check-in with member cards: {seated}; guests at {guests or 'none'}")
        config = configure(variant, players, {}, history=self.club.history(members, players))
        seed = plan.seed * 1000 + number
        physical = SimTable(players, clock.now)
        table = MemberCardGuard(physical, lambda uid: self.club.store.member_by_card(uid) is not None, clock,
                                self.lang)
        voice = NullVoice(clock.now, load_voice_pack("zh-CN"))
        deck, dealt = sim_hands(config, seed)
        director = Director(table, voice, clock, config, journal=journal, timings=Timings(), lang=self.lang,
                            seed=seed, deck=deck)
        bots = TableBots(director, physical, plan.policy, seed)
        judge: list[str] = []
        self._judge(director, number, judge)
        replay = journal.replay()
        if resume and replay is not None:
            director.resume(replay)
            bots.seen = 0
            self.club.follow(journal, clock, resumed=True, over=lambda: director.stage == "over")
        else:
            director.start()
            taps = [(seat, uid) for seat, hand in sorted(dealt.items()) for uid in hand]
            for i, (seat, uid) in enumerate(taps):
                clock.call_at(1.0 + 0.5 * i, _tap(physical, seat, uid))
            # a member taps their member card on the reader in the middle of the deal: nothing changes
            member_cards = [c for n, c, _ in DEMO_MEMBERS if n == members.get(1)]
            if member_cards:
                clock.call_at(1.2, _tap(physical, 1, member_cards[0]))
            clock.run(until=lambda: director.state is not None)
            self.club.checkin(journal, members, clock.now())
            self.club.follow(journal, clock, resumed=False, over=lambda: director.stage == "over")
        clock.run(until=lambda: director.stage == "over")
        recorded = self.club.game_over(journal, clock.now(), self.crash_point)
        self.report.kept_cards += table.kept
        for seat, _uid in table.kept:
            self.say(f"game {number}: seat {seat} tapped a member card during the deal: a member card, not a role "
                     f"card; nothing changed")
        record = next((r for r in recorded if r.journal_game == journal.game), None)
        if record is None:
            return
        points = [p.as_dict() for p in score(record, self.club.scoring)]
        self.report.games.append(GameReport(record.journal_game, record.winner, record.reason, points, judge))
        names = ", ".join(f"{p['seat']}:{p['member'] or 'guest'} {p['total']:+g}" for p in points)
        self.say(f"game {record.id}: {record.winner} ({record.reason}), {round(record.minutes)} min; "
                 f"{'; '.join(judge) + '; ' if judge else ''}points {names}")

    def _checkin(self, clock: VirtualScheduler, variant: Any, number: int) -> tuple[int, dict[int, str | None]]:
        """Members tap their cards on their seats, guests press OK, the judge starts the game; the board shows
        the evening's standings, the remote the last game's points."""
        plan = self.plan
        table = SimTable(max(plan.players, 16), clock.now)
        started: list[int] = []
        lines = self.club.last_game_lines()
        board = SimBoard()
        facts: dict[str, object] = {"gesture": "standings", "standings": [
            {"rank": r["rank"], "member": r["member"], "points": r["points"]}
            for r in self.club.evening_standings()]}

        def member_card(uid: str) -> MemberCard | None:
            check = self.club.card(uid)
            return None if check is None else MemberCard(check.member.name, check.words)

        lobby = Lobby(table, clock, variant, {}, started.append, judge=True, lang=self.lang,
                      member_card=member_card, remote_lines=lines, board=board, board_facts=facts)
        lobby.start()
        rng = random.Random(f"seats:{plan.seed}:{number}")  # who sits where: the same after a restart
        cards = [(name, card) for name, card, _ in DEMO_MEMBERS]
        rng.shuffle(cards)
        seat = 0
        for n in range(1, plan.players + 1):
            if n in plan.guests:
                table.press(n, Button.OK)
                continue
            while seat < len(cards):
                name, card = cards[seat]
                seat += 1
                table.tap(n, card)
                if lobby.members.get(n) == name:
                    break
        table.remote_key(RemoteKey.CENTER)
        clock.run(until=lambda: bool(started), max_time=60.0)
        self.report.board.append(board.last)
        self.report.remote_lines.append(lines)
        if not started:
            raise RuntimeError(f"the check-in did not start: {lobby.ready()}")
        return started[0], {s: lobby.members.get(s) for s in range(1, started[0] + 1)}

    def _judge(self, director: Director, number: int, said: list[str]) -> None:
        """The evening's judge: a penalty, an ejection and a surrender, through the director's own commands."""
        plan = self.plan
        clock = director.clock

        def on_window(d: Director, w: Window) -> None:
            s = d.state
            if s is None or s.over or s.phase != "day":
                return
            if number == plan.penalty_game and not s.penalties and w.kind == "speeches" and s.queue:
                seat = s.queue[-1]
                clock.call_at(clock.now() + 1.0, lambda: _once(d, "penalty", seat, said))
            elif number == plan.eject_game and not any(c == "ejected" for _, c in s.dead) and s.queue \
                    and w.kind == "speeches" and len(s.queue) > 2:
                seat = s.queue[-1]
                clock.call_at(clock.now() + 1.0, lambda: _once(d, "eject", seat, said))
            elif number >= plan.surrender_from and not self._surrendered():
                for seat in s.living():
                    spec = s.spec(seat)
                    if spec.knows_partners and not spec.civilian and len(s.living_with((s.role_of(seat),))) == 1:
                        clock.call_at(clock.now() + 1.0, partial(_once, d, "surrender", seat, said))
                        break

        director.listeners.append(on_window)

    def _surrendered(self) -> bool:
        return any("surrender" in line for g in self.report.games for line in g.judge) or any(
            r.surrenders for r in self.club.store.games(table=self.club.table))


def _tap(table: SimTable, seat: int, uid: str) -> Callable[[], None]:
    return lambda: table.tap(seat, uid)


def _once(d: Director, what: str, seat: int, said: list[str]) -> None:
    s = d.state
    if s is None or s.over or seat not in s.alive or any(line.startswith(what) for line in said):
        return
    if what == "penalty":
        d.penalty(seat)
    elif what == "eject":
        d.eject(seat, "broke the rules (§5.15)")
    else:
        d.surrender(seat)
    said.append(f"{what} seat {seat}")
