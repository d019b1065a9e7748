"""Every word a screen shows, in Chinese (the default) and English.

One table, so a translator or a new language touches one file, and so the font subset (``fonts/build.py``) can
prove that every character here has a glyph. Views carry IDs (a role, an action, a side) and numbers, never
sentences; this module turns them into words.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterator, Mapping

from controller.rules.variant import Variant, builtin_ids, load_variant
from controller.rules.words import KILLER_GAME
from controller.rules.words import shared as shared_words


class Lang(enum.Enum):
    """Screen languages. Chinese first: the game is Chinese."""

    ZH = "zh"
    EN = "en"

    @classmethod
    def parse(cls, value: str | Lang) -> Lang:
        """``"zh"``/``"en"`` (any case, ``zh-CN`` etc. too) to a :class:`Lang`, with a clear error otherwise."""
        if isinstance(value, Lang):
            return value
        key = value.strip().lower().split("-")[0].split("_")[0]
        for lang in cls:
            if lang.value == key:
                return lang
        raise ValueError(f"screen language {value!r} is not one of: {', '.join(x.value for x in cls)}")


#: The killer game's words, shared by the seed versions (controller/variants/_killer-game.toml): a role's name,
#: a night step's title, a side's name and a check's answer are written there once, beside the judge's calls.
_SHARED = shared_words(KILLER_GAME)

#: Role IDs (as the rules engine and deck files name them) to (zh, en).
ROLES: dict[str, tuple[str, str]] = dict(_SHARED.table("roles"))

#: Alternative role IDs seen in the rules and seeds, mapped to the IDs above.
ROLE_ALIASES: dict[str, str] = dict(_SHARED.names["aliases"])

#: Night actions (title on the choice screen).
ACTIONS: dict[str, tuple[str, str]] = dict(_SHARED.table("actions"))

#: Sides (winners).
SIDES: dict[str, tuple[str, str]] = dict(_SHARED.table("sides"))


def _answer(key: str, shout: bool = False) -> tuple[str, str]:
    """A check's answer on the police's screen (V2.2): the shared words, in English a yes in capitals (KILLER), the
    rest as a sentence (Not a killer)."""
    zh, en = _SHARED.table("answers")[key]
    return zh, en.upper() if shout else en[:1].upper() + en[1:]


#: Everything else. ``{n}`` is a seat number, other fields are named where used.
UI: dict[str, tuple[str, str]] = {
    "seat": ("{n}号", "Seat {n}"),
    "seat_short": ("{n}号", "#{n}"),
    "checkin": ("按 OK\n加入", "Press OK\nto join"),
    "joined": ("已加入", "Joined"),
    "tap_card": ("请刷你的牌", "Tap your card"),
    "tap_card_n": ("请刷第{n}张牌", "Tap card {n}"),  # D1-D3: two cards a seat, one after the other
    "tap_card_hint": ("牌面朝下放在读卡处", "Card face down on the reader"),
    "peek": ("按住 OK 看身份", "Hold OK to see your role"),
    "you_are": ("你的身份", "You are"),
    "partners": ("同伴", "Partners"),
    "no_partners": ("", ""),
    "hold_ok": ("按住 OK 再看", "Hold OK to see again"),
    "card_unknown": ("未知的牌", "Unknown card"),
    "card_unknown_body": ("这张牌不在本副牌中", "This card is not in this deck"),
    "card_duplicate": ("重复的牌", "Duplicate card"),
    "card_duplicate_body": ("这张牌已在{n}号", "This card is at seat {n}"),
    "card_twice": ("已刷过牌", "Already tapped"),
    "card_twice_body": ("每人只刷一张牌，请等法官处理", "One card per seat; wait for the judge"),
    "card_third_body": ("每人只刷两张牌，请等法官处理", "Two cards per seat; wait for the judge"),
    "card_void": ("发牌无效", "Deal void"),
    "card_void_body": ("杀手和警察在同一手，请等法官重新发牌", "Killer and police in one hand: wait for the redeal"),
    "deck_mismatch": ("牌组不符", "Deck mismatch"),
    "deck_missing": ("缺", "Missing"),
    "deck_extra": ("多", "Extra"),
    "deck_wait": ("请等法官重新发牌", "Wait for the judge to redeal"),
    "eyes_closed": ("天黑请闭眼", "Night: close your eyes"),
    "choose_hint": ("←→选择  OK确认", "←→ choose, OK confirm"),
    "skip": ("不行动", "Skip"),
    "tear_badge": ("撕毁警徽", "Tear it"),  # W10: the badge's pointer past the last seat
    "confirmed": ("已确认", "Confirmed"),
    "then_card": ("后手：{card}", "Then: {card}"),  # D1: the second card, which takes over later
    "card_n": ("第{n}张", "Card {n}"),
    "mates": ("同伴", "Mates"),
    "mate_pick": ("同伴选", "mate"),
    "nod": _answer("nod", shout=True),
    "shake": _answer("shake"),
    "no_signal": _answer("none"),
    "check_of": ("{n}号", "Seat {n}"),
    "dead": ("你已出局", "You are out"),
    "dead_body": ("请保持安静", "Please stay silent"),
    "speaking": ("{n}号发言", "Seat {n} speaking"),
    "last_words_of": ("{n}号遗言", "Seat {n}: last words"),
    "last_words_of_short": ("{n}号遗言", "#{n} last words"),
    "speaking_short": ("{n}号发言", "#{n} speaking"),
    "your_speech": ("你的发言", "Your speech"),
    "your_last_words": ("你的遗言", "Last words"),
    "ok_pass": ("OK = 过", "OK = pass"),
    "time_up": ("时间快到", "Time is almost up"),
    "vote_call": ("投{n}号？", "Vote seat {n}?"),
    "vote_hint": ("同意请按 OK", "Hands up: press OK"),
    "vote_counted": ("已计票", "Vote counted"),
    "vote_counted_body": ("你投了{n}号", "You voted for seat {n}"),
    "vote_call_other": ("现在点{n}号", "Now calling seat {n}"),
    "vote_call_other_short": ("点{n}号", "Calling {n}"),
    "vote_yours": ("你投了", "You voted"),
    "vote_yours_none": ("你已弃权", "You abstained"),
    "vote_yours_in": ("你的票已计", "Your vote is in"),
    "vote_late": ("晚了\n不计票", "Late: not counted"),
    "vote_late_body": ("跟票无效", "Follow-votes do not count"),
    "vote_already": ("已投过票", "You already voted"),
    "vote_already_body": ("每人一票", "One vote each"),
    "tally": ("计票", "Tally"),
    "tally_out": ("{n}号出局", "Seat {n} is out"),
    "tally_tie": ("平票", "Tie"),
    "tally_tie_n": ("{k}人平票", "{k}-way tie"),
    "tally_none": ("无人出局", "Nobody is out"),
    "votes": ("{v}票", "×{v}"),
    "paused": ("暂停", "Paused"),
    "paused_body": ("请等待法官", "Waiting for the judge"),
    "game_over": ("游戏结束", "Game over"),
    "winner": ("{side}胜", "{side} won"),
    "draw": ("平局", "Draw"),
    "you_won": ("你赢了", "You won"),
    "you_lost": ("你输了", "You lost"),
    "your_role_was": ("你是", "You were"),
    # the judge's remote
    "judge_seats": ("座位", "Seats"),
    "judge_night": ("夜间行动", "Night choices"),
    "judge_turn": ("当前", "Now"),
    "judge_alive": ("活", "in"),
    "judge_dead": ("死", "out"),
    "judge_none": ("无", "none"),
    "judge_empty": ("（空）", "(empty)"),
    "day": ("第{d}天", "Day {d}"),
    "night": ("第{d}夜", "Night {d}"),
    "judge_deal": ("发牌", "Deal"),
    "judge_menu": ("法官菜单", "Judge menu"),
    "judge_end": ("结局", "The end"),
    # the judge's commands (controller/director/judge_commands.py): the menu's words, the choices, the results
    "cmd_pause": ("暂停", "Pause"),
    "cmd_resume": ("继续", "Resume"),
    "cmd_repeat": ("重播提示", "Repeat prompt"),
    "cmd_extend": ("延长计时", "Extend timer"),
    "cmd_end_timer": ("结束计时", "End timer"),
    "cmd_undo": ("撤销上一步", "Undo last input"),
    "cmd_eject": ("请出场", "Eject"),
    "cmd_penalty": ("罚分", "Penalty point"),
    "cmd_surrender": ("投降", "Surrender"),
    "cmd_self_destruct": ("自爆", "Self-destruct"),  # W11
    "cmd_judge_pick": ("法官录入", "Enter the pick"),
    "cmd_direction": ("发言方向", "Direction"),
    "cmd_redeal": ("重新发牌", "Redeal"),
    "cmd_abort": ("中止游戏", "Abort game"),
    "cmd_closed": ("（现在不可用）", "(not now)"),
    "choose_seat": ("←→选择 中键确定", "←→ then centre"),
    "press_again": ("再按中键确认", "Centre again to confirm"),
    "back_cancels": ("返回键取消", "Back cancels"),
    "clockwise": ("顺时针", "Clockwise"),
    "counterclockwise": ("逆时针", "Counter-clockwise"),
    "n_seconds": ("{s}秒", "{s} s"),
    "ask": ("{cmd}：{what}？", "{cmd}: {what}?"),
    "ask_plain": ("{cmd}？", "{cmd}?"),
    "done_pause": ("已暂停", "Paused"),
    "done_resume": ("已继续", "Resumed"),
    "done_repeat": ("已重播", "Said again"),
    "done_extend": ("计时延长{s}秒", "Timer +{s} s"),
    "done_end_timer": ("计时已结束", "Timer ended"),
    "done_undo": ("已撤销：{what}", "Undone: {what}"),
    "done_eject": ("{n}号已被请出场", "Seat {n} ejected"),
    "done_penalty": ("{n}号罚分，共{p}分", "Seat {n}: penalty, {p} in all"),
    "done_surrender": ("{n}号投降", "Seat {n} surrendered"),
    "done_self_destruct": ("{n}号自爆", "Seat {n} self-destructed"),
    "done_judge_pick": ("已录入：{what}", "Entered: {what}"),
    "done_direction": ("发言方向：{what}", "Direction: {what}"),
    "done_redeal": ("重新发牌", "Redealing"),
    "done_abort": ("游戏已中止", "Game aborted"),
    "not_now": ("现在不能{cmd}", "{cmd}: not now"),
    "not_a_choice": ("{what}不可选", "{what} cannot be chosen"),
    "nothing_to_undo": ("没有可撤销的操作", "Nothing to undo"),
    "refused": ("不允许", "Refused"),
    # why the rules refuse an input (the engine's Rejected codes), on the remote and the seat it came from
    "why_partners_alive": ("{n}号还有同伴在场，不能投降（V2.11）", "Seat {n} has partners alive: no surrender (V2.11)"),
    "why_civilian_surrender": ("平民不能投降（V2.11）", "Civilians may not surrender (V2.11)"),
    "why_no_team": ("{n}号没有同伴阵营，不能投降（V2.11）", "Seat {n} has no side to surrender for (V2.11)"),
    "why_no_surrender": ("本版本不允许投降（V2.11）", "This version allows no surrender (V2.11)"),
    "why_dead": ("{n}号已出局", "Seat {n} is out"),
    "why_wait_ended": ("这一轮刚刚结束", "That turn has just ended"),
    "why_unknown_seat": ("没有{n}号", "There is no seat {n}"),
    "why_not_now": ("现在不能这样做", "Not possible now"),
    "why_game_over": ("游戏已结束", "The game is over"),
    "why_must_choose": ("这一步必须选人", "This step needs a pick"),
    "why_bad_target": ("{t}号不能选", "Seat {t} cannot be chosen"),
    "why_target_dead": ("{t}号已出局", "Seat {t} is out"),
    "why_no_checks_left": ("警察已没有验人次数（V2.10）", "The police have no checks left (V2.10)"),
    "why_not_your_turn": ("现在不是你的回合", "It is not your turn"),
    # what a seat's own screen says the judge did to it
    "dead_ejected": ("你被请出场", "You are ejected"),
    "penalty_title": ("罚分", "Penalty point"),
    "penalty_body": ("罚一分，共{p}分", "One point, {p} in all"),
    "surrender_ask": ("投降？", "Surrender?"),
    "self_destruct_ask": ("自爆？", "Self-destruct?"),  # W11: the seat's own gesture (input_routing.py)
    "surrender_hint": ("OK确认  ←→取消", "OK: yes  ←→: no"),
    # the judge's status screen: whose turn it is
    "turn_night": ("{role}{action}", "{role}: {action}"),
    "turn_speech": ("{n}号发言", "Seat {n} speaks"),
    "turn_defence": ("{n}号辩护", "Seat {n} defends"),
    "turn_last_words": ("{n}号遗言", "Seat {n}: last words"),
    "turn_vote": ("投票", "Vote"),
    "turn_vote_call": ("投{n}号？", "Vote for {n}?"),
    "turn_vote_of": ("{n}号投票", "Seat {n} votes"),
    "turn_direction": ("选择发言方向", "Choose the direction"),
    "turn_candidacy": ("竞选警长：上警", "Sheriff: who runs"),  # W10
    "turn_badge": ("{n}号移交警徽", "Seat {n}: the badge"),
    "turn_sheriff_direction": ("{n}号警长选择方向", "Sheriff {n}: direction"),
    "turn_defence_claim": ("申请辩护", "Defence claims"),
    "turn_first_identity": ("选先手身份", "First identities"),
    "turn_recognise": ("{role}认同伴", "{role}: meet"),
    "turn_none": ("—", "—"),
    "pick": ("{action}→{t}", "{action}→{t}"),
    "pick_skip": ("{action}：不行动", "{action}: skip"),
    "seat_offline": ("{n}号没有响应", "Seat {n} is not answering"),
    "lobby_setup": ("设置", "Setup"),
    "lobby_checkin": ("签到", "Check-in"),
    "lobby_players": ("{n}人：{joined}", "{n} players: {joined}"),
    "lobby_deck": ("牌：{deck}", "deck: {deck}"),
    "lobby_hint": ("中键开始 ←→人数 菜单设置", "centre = start, ←→ = count, menu = setup"),
    "lobby_nobody": ("还没有人签到", "nobody has checked in"),
    "lobby_sit": ("请坐在1到{n}号", "players sit in seats 1..{n}"),
    "lobby_cannot": ("{n}人不能玩这个版本", "{n} players cannot play this version"),
    "deal_unknown_card": ("{n}号：牌{uid}不在本副牌中", "seat {n}: card {uid} is not in this deck"),
    "deal_extra_card": ("{n}号：多刷了一张牌（第{count}张）", "seat {n}: tapped one card too many (card {count})"),
    "deal_duplicate_card": ("{n}号：牌{uid}已在{m}号", "seat {n}: card {uid} is already at seat {m}"),
    "deal_mismatch": ("牌组不符：缺{missing}，多{extra}；请重新发牌", "deck mismatch: missing {missing}, extra {extra}; redeal"),
    "deal_void": ("发牌无效（{code}）：杀手和警察在同一手", "deal void ({code}): {why}"),
    "deal_redeal_hint": ("请重新发牌：菜单 > 重新发牌", "redeal: menu > redeal"),
}


#: The rule options the judge sets on the remote's setup page (controller/rules/options.py), by key.
OPTION_NAMES: dict[str, tuple[str, str]] = {
    "variant": ("版本", "variant"),
    "roles": ("角色表", "roles"),
    "win": ("胜负", "win"),
    "lastwords": ("遗言", "last words"),
    "lastwords.quota": ("遗言名额", "last-words quota"),
    "speech.any_direction": ("法官定发言方向", "judge picks direction"),
    "defence.suspects": ("嫌疑人辩护", "suspects defend"),
    "vote": ("投票顺序", "vote order"),
    "vote.window_s": ("举手时限秒", "hand window s"),
    "tie": ("平票", "tie"),
    "tie.limit": ("平票上限", "tie limit"),
    "checks": ("验人次数", "checks"),
    "first_night": ("首夜", "first night"),
    "first_victim.max_repeat": ("首杀连续上限", "first victim repeats"),
    "surrender": ("投降", "surrender"),
    "killers.selfkill": ("杀手自杀", "killer self-kill"),
    "needle.no_save_from_shot": ("针不救枪", "needle vs shot"),
    "dual.police_killer": ("警匪同手", "police+killer hand"),
    "group_tie": ("分歧", "group split"),
    "quiet_night": ("平安夜", "quiet night"),
}

#: The values of those options (a seed's number such as "003" is shown as itself).
OPTION_VALUES: dict[str, tuple[str, str]] = {
    "on": ("开", "on"),
    "off": ("关", "off"),
    "club": ("俱乐部", "club"),
    "civilians_lose": ("屠民", "civilians lose"),
    "police_only": ("屠警", "police only"),
    "quota": ("名额", "quota"),
    "killer_silent": ("杀手无遗言", "killer silent"),
    "all": ("全部", "all"),
    "reverse": ("倒序", "reverse"),
    "from_victim": ("从死者起", "from victim"),
    "revote": ("重投", "revote"),
    "debate_first": ("先辩论", "debate first"),
    "top2": ("前两名", "top two"),
    "kill": ("杀人", "kill"),
    "recognition": ("认人", "recognition"),
    "swap": ("换牌", "swap"),
    "choose": ("自选", "choose"),
    "forfeit": ("放弃", "forfeit"),
    "random": ("随机", "random"),
    "day": ("白天", "day"),
    "next_night": ("下一夜", "next night"),
}


def _pick(pair: tuple[str, str], lang: Lang) -> str:
    return pair[0] if lang is Lang.ZH else pair[1]


def ui(key: str, lang: Lang, **fields: object) -> str:
    """A UI phrase, with ``{n}``-style fields filled in. An unknown key is a programming error: say which."""
    try:
        pair = UI[key]
    except KeyError:
        raise KeyError(f"screen text {key!r} is not in controller/screens/strings.py UI") from None
    return _pick(pair, lang).format(**fields)


def _lookup(table: dict[str, tuple[str, str]], key: str, lang: Lang,
            aliases: dict[str, str] | None = None) -> str:
    norm = key.strip().lower().replace("-", "_").replace(" ", "_")
    norm = (aliases or {}).get(norm, norm)
    if norm in table:
        return _pick(table[norm], lang)
    # An ID we have no words for is shown as itself rather than hidden: the screen still says something true,
    # and tests/screens/test_strings.py lists the IDs the engine uses so a gap is caught before a game.
    return key


def option_name(key: str, lang: Lang) -> str:
    return _pick(OPTION_NAMES[key], lang) if key in OPTION_NAMES else key


def option_value(value: str, lang: Lang) -> str:
    return _pick(OPTION_VALUES[value], lang) if value in OPTION_VALUES else value


def role_name(role: str, lang: Lang) -> str:
    if not _in_table("role", role) and (words := variant_word("roles", role)):
        return _pick(words, lang)
    return _lookup(ROLES, role, lang, ROLE_ALIASES)


def card_name(card: str, lang: Lang) -> str:
    """A dual-card version's card (D3 numbers its doctors and snipers): ``"doctor#2"`` -> "医生2" / "Doctor 2"."""
    role, _, copy = card.partition("#")
    name = role_name(role, lang)
    return f"{name}{copy}" if copy and lang is Lang.ZH else f"{name} {copy}" if copy else name


#: Night steps whose seed name is not their action's (V2.2 the informant "informs" as a check, V3.3 "secret").
_STEP_ACTIONS = {"inform": "check", "secret": "secret_kill"}


def night_action(variant: Variant, step: str) -> str:
    """The action a seat's screen names for a night step (the director's NightChoice, the bus's screen reader):
    the seeds' step names, else a role's act on dying by its ability (W8: "on_death.hunter" is "shoot"), else
    the step's id (the W boards name their steps after their abilities: "antidote", "guard")."""
    if step.startswith("on_death.") and step in variant.night_steps:
        return variant.night_steps[step].ability
    return _STEP_ACTIONS.get(step, step)


def action_name(action: str, lang: Lang, variant: str | Variant = "") -> str:
    """A night action's word on a screen. The version played names it first (its ``[words.actions]``: the W
    boards' hunter 开枪 "Shoot" where the seeds' sniper 狙击 shares the ability, W8); then this module's table
    (the seeds' words); then any variant file's (a club's new step, 解药)."""
    if own := own_word(own_words(variant, "actions", action), lang):
        return own
    if not _in_table("action", action) and (words := variant_word("actions", action)):
        return _pick(words, lang)
    return _lookup(ACTIONS, action, lang)


#: Words of a variant file that is not built in (a club's own), learnt when a game of it starts.
_LEARNT: dict[str, dict[str, tuple[str, str]]] = {}


def learn(variant: Variant) -> None:
    """A club's own variant file adds its role and action words (``[words.roles]``, ``[words.actions]``) to
    those of the built-in variants, which :func:`variant_word` knows from the start."""
    for table in ("roles", "actions"):
        _LEARNT.setdefault(table, {}).update(variant.words.get(table, {}))


def variant_word(table: str, key: str) -> tuple[str, str] | None:
    """``key``'s words in a variant file's ``[words.<table>]``: a new role's name (狼人 werewolf), a new step's
    action (解药 antidote) need no line in the tables above. A learnt file's words win over a built-in one's."""
    return _LEARNT.get(table, {}).get(key) or _builtin_variant_words(table).get(key)


@functools.cache
def _builtin_variant_words(table: str) -> Mapping[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for vid in sorted(_builtin()):
        out.update(_builtin_words(vid).get(table, {}))
    return out


def side_name(side: str, lang: Lang) -> str:
    return _lookup(SIDES, side, lang)


def winner_name(side: str, lang: Lang, variant: str | Variant = "") -> str:
    """The winning side as the version played names it: its variant file's ``[words.sides]`` (the same words as
    the voice's ending, ``ENDINGS`` in controller/voice/prompts.py); otherwise :data:`SIDES`. ``variant``: a
    built-in id, or the variant itself (a club's own file, a test-local board)."""
    return own_word(own_words(variant, "sides", side), lang) or side_name(side, lang)


def side_label(side: str, variant: str | Variant) -> str:
    """A side as the variant names it, with its id when the words differ (``Werewolves (killers)``): the words
    for the reader, the id (``good``, ``killers``, ``draw``: what journals, results and JSON keys hold) for a
    script that greps the lines. English: the lab's reports and the simulator's summary are written in it."""
    name = winner_name(side, Lang.EN, variant)
    return side if name.lower() == side else f"{name} ({side})"


def own_words(variant: str | Variant, table: str, key: str) -> tuple[str, ...]:
    """``key``'s ``(zh, en)`` in the variant's ``[words.<table>]``, or ``()`` when the variant has none (then
    the built-in tables here speak: the seed versions' words). A view carries these, so a screen needs no
    variant file to say them."""
    words = variant.words if isinstance(variant, Variant) else _builtin_words(variant)
    return words.get(table, {}).get(key, ())


def own_word(words: tuple[str, ...], lang: Lang) -> str:
    """One language of an ``own_words`` pair; "" when there is none."""
    return _pick((words[0], words[1]), lang) if len(words) == 2 else ""


def _builtin_words(variant: str) -> Mapping[str, Mapping[str, tuple[str, str]]]:
    """A built-in variant's ``[words]`` (read once: variants are cached); empty for any other id."""
    if variant not in _builtin():
        return {}
    return load_variant(variant).words


@functools.cache
def _builtin() -> frozenset[str]:
    return frozenset(builtin_ids())


def known(table: str, key: str) -> bool:
    """Whether ``key`` has words in ``table`` (``"role"``, ``"action"`` or ``"side"``) or in a variant file's."""
    return _in_table(table, key) or variant_word(f"{table}s", key) is not None


def _in_table(table: str, key: str) -> bool:
    norm = key.strip().lower().replace("-", "_").replace(" ", "_")
    if table == "role":
        return ROLE_ALIASES.get(norm, norm) in ROLES
    return norm in {"action": ACTIONS, "side": SIDES}[table]


def all_texts() -> Iterator[str]:
    """Every string in every table (both languages): what the font subset must cover."""
    for table in (ROLES, ACTIONS, SIDES, UI, OPTION_NAMES, OPTION_VALUES, *map(_builtin_variant_words, WORDS_SHOWN)):
        for zh, en in table.values():
            yield zh
            yield en


#: The ``[words]`` tables of a variant file that the screens show.
WORDS_SHOWN = ("roles", "actions", "sides", "answers")
