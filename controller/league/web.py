"""The league's page: the clubs (and whether each one's bridge is up), the members across clubs, the league
standings and the week's standings, the week's games. Starlette on uvicorn, rendered on the server, nothing
fetched from the internet; it reloads itself every 10 s. ``GET /`` the page · ``GET /state`` the same as JSON.
Read-only: nothing on it changes the league (merging two records is ``tianhei league merge`` on the league's
machine), so there is no write call for another site's page to send (any other method is 405).

Every request must name the league (its ``Host`` one of the page's names or the address it reached, else 421):
the club's console and hall do the same with the same guard (controller/web/hosts.py), so a DNS-rebinding page
cannot read ``/state`` through a browser on the league's network. More names: ``[league] http_names``."""

from __future__ import annotations

import datetime
import functools
import html
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route

from controller.league.service import LeagueService
from controller.rules.variant import builtin_ids, load_variant
from controller.web.guarded import GuardedServer
from controller.web.hosts import HostGuard, Throttled, default_names

log = logging.getLogger(__name__)

WORDS = {
    "zh": {"title": "天黑联赛", "clubs": "俱乐部", "club": "俱乐部", "bridge": "连接", "up": "在线",
           "down": "离线", "games": "局数", "tonight": "本晚榜首", "standings": "联赛积分", "week": "本周积分",
           "members": "会员（跨俱乐部）", "member": "会员", "points": "积分", "wins": "胜", "rank": "名次",
           "week_games": "本周对局", "room": "包房", "variant": "版本", "players": "人数", "winner": "胜方",
           "when": "时间", "none": "暂无", "good": "好人", "killers": "杀手", "draw": "平局", "in": "所在俱乐部"},
    "en": {"title": "Tianhei league", "clubs": "Clubs", "club": "Club", "bridge": "Link", "up": "up",
           "down": "down", "games": "Games", "tonight": "Tonight's top", "standings": "League standings",
           "week": "This week", "members": "Members across clubs", "member": "Member", "points": "Points",
           "wins": "Wins", "rank": "#", "week_games": "This week's games", "room": "Room", "variant": "Variant",
           "players": "Players", "winner": "Winner", "when": "When", "none": "none yet", "good": "good",
           "killers": "killers", "draw": "draw", "in": "Clubs"},
}
#: The week's games say their day in the page's language (the server's locale is not the reader's).
DAYS = {"zh": ("周一", "周二", "周三", "周四", "周五", "周六", "周日"), "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")}


@functools.cache
def _builtin_names() -> dict[str, tuple[str, str]]:
    """Every built-in variant's (English, Chinese) name, read once."""
    return {v.id: (v.name, v.name_zh) for v in map(load_variant, builtin_ids())}


def _own(words: Sequence[str] | None, lang: str) -> str:
    """One language of a record's own [zh, en] words (the other when that one is empty); "" without a pair."""
    if not words or len(words) != 2:
        return ""
    first, other = (words[1], words[0]) if lang == "en" else (words[0], words[1])
    return str(first or other)


def variant_name(variant: str, lang: str, own: Sequence[str] | None = None) -> str:
    """A built-in variant's name in the page's language ("标准版 2.0（警匪）"); a club's own variant by the name its
    record carries (``variant_words``: the league has no copy of the file, and never opens a path that came over a
    bridge); its id as it came for a record kept before records carried words."""
    names = _builtin_names().get(variant)
    if names is None:
        return _own(own, lang) or variant
    return names[0] if lang == "en" else names[1]


def winner_words(side: str, variant: str, lang: str, own: Sequence[str] | None = None) -> str:
    """A variant's own name for a winning side ID (狼人 after a werewolf board: its [words.sides]): a built-in
    one's from its table, a club's own from its record (``winner_words``, kept when the game was played, so a
    file changed since changes no history); "" for none (the page's generic words then). No file a bridge named
    is ever opened."""
    from controller.screens.strings import Lang, own_word, own_words

    if variant not in _builtin_names():
        return _own(own, lang)
    return own_word(own_words(variant, "sides", side), Lang.EN if lang == "en" else Lang.ZH)


def _table(head: list[str], rows: list[list[Any]], none: str) -> str:
    if not rows:
        return f"<p class=none>{html.escape(none)}</p>"
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows]
    return "".join(out) + "</table>"


def _standings(rows: list[dict[str, Any]], w: dict[str, str]) -> str:
    return _table([w["rank"], w["member"], w["points"], w["wins"], w["games"]],
                  [[r["rank"], r["member"], f"{r['points']:g}", r["wins"], r["games"]] for r in rows], w["none"])


def render_page(snap: dict[str, Any], lang: str = "zh") -> str:
    w = WORDS.get(lang, WORDS["zh"])
    clubs = _table([w["club"], w["bridge"], w["games"], w["tonight"]],
                   [[c["club"], w.get(c["bridge"], "?"), c["games"],
                     ", ".join(f"{s['member']} {s['points']:g}" for s in c["standings"][:3])] for c in snap["clubs"]],
                   w["none"])
    members = _table([w["member"], w["in"], w["games"]],
                     [[m["name"], ", ".join(m["clubs"]), m["games"]] for m in snap["members"]], w["none"])

    def when(at: float) -> str:
        t = datetime.datetime.fromtimestamp(at)
        return f"{DAYS['en' if lang == 'en' else 'zh'][t.weekday()]} {t:%H:%M}"

    week = _table([w["when"], w["club"], w["room"], w["variant"], w["players"], w["winner"]],
                  [[when(g["at"]), g["club"], g["room"],
                    variant_name(str(g["variant"]), lang, g.get("variant_words")), g["players"],
                    winner_words(str(g["winner"]), str(g["variant"]), lang, g.get("winner_words"))
                    or w.get(g["winner"], g["winner"])]
                   for g in snap["week"]], w["none"])
    return f"""<!doctype html><html lang="{'en' if lang == 'en' else 'zh-CN'}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="refresh" content="10">
<title>{w['title']}</title><style>
body{{font-family:sans-serif;background:#111;color:#eee;margin:1em}} h1{{margin:.2em 0}}
section{{display:inline-block;vertical-align:top;margin:0 1.5em 1em 0}} table{{border-collapse:collapse}}
td,th{{padding:.15em .6em;text-align:left;border-bottom:1px solid #333}} th{{color:#aaa}} .none{{color:#888}}
</style></head><body><h1>{w['title']}</h1>
<section><h2>{w['standings']}</h2>{_standings(snap['standings'], w)}</section>
<section><h2>{w['week']}</h2>{_standings(snap['week_standings'], w)}</section>
<section><h2>{w['clubs']}</h2>{clubs}</section>
<section><h2>{w['members']}</h2>{members}</section>
<section><h2>{w['week_games']}</h2>{week}</section>
</body></html>"""


def create_app(service: LeagueService, *, names: frozenset[str] | None = None,
               clock: Callable[[], float] = time.monotonic) -> Starlette:
    """The league's page. ``names``: the ``Host`` names answered (default: :func:`default_names` of a page on
    loopback)."""
    async def page(request: Request) -> HTMLResponse:
        lang = "en" if request.query_params.get("lang", "").startswith("en") else "zh"
        return HTMLResponse(render_page(service.snapshot(), lang))

    async def state(request: Request) -> JSONResponse:
        return JSONResponse(service.snapshot())

    app = Starlette(routes=[Route("/", page), Route("/state", state)])
    app.add_middleware(HostGuard, names=names if names is not None else default_names("127.0.0.1"), who="league",
                       key="[league] http_names", log=Throttled(log, clock))
    return app


async def open_page(service: LeagueService, host: str, port: int, names: Sequence[str] = (), *,
                    key: str = "tianhei league --host") -> GuardedServer:
    """The league's page on ``host``:``port``, started, behind the judge's console's deadlines and limits
    (controller/web/guarded.py): unfinished requests from anywhere cannot take it down. It answers to ``host``,
    this machine's names and ``names``; ``key`` is the option that moves it (for a port in use)."""
    server = GuardedServer(create_app(service, names=default_names(host, *names)), host, port, who="league's page",
                           log=log, guard_key=key)
    await server.start()
    return server
