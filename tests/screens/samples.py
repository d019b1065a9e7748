"""Every view the director can show, as it would on a real table, plus worst cases (the longest role names,
the biggest seat numbers, full partner lists). The golden and fit tests both iterate over these."""

from __future__ import annotations

from controller.screens import views as v
from controller.screens.strings import ACTIONS, ROLES, UI

CD = v.Countdown(23.4, 30)


def _words(key: str, **fields: object) -> v.L10n:
    zh, en = UI[key]
    return v.L10n(zh.format(**fields), en.format(**fields))


def _longest(table: dict[str, tuple[str, str]], lang_index: int) -> str:
    return max(table, key=lambda k: len(table[k][lang_index]))


LONG_ROLE_ZH = _longest(ROLES, 0)
LONG_ROLE_EN = _longest(ROLES, 1)
LONG_ACTION = _longest(ACTIONS, 1)

SAMPLES: dict[str, v.View] = {
    # setup and deal
    "checkin": v.CheckIn(3),
    "checkin_joined": v.CheckIn(3, joined=True),
    "checkin_seat20": v.CheckIn(20),
    "tap_card": v.TapCard(7),
    "tap_card_digital": v.TapCard(7, digital=True),
    "role_killer": v.RoleReveal(4, "killer", partners=(2, 9), hint=True),
    "role_civilian": v.RoleReveal(5, "civilian"),
    "role_long_zh": v.RoleReveal(12, LONG_ROLE_ZH, partners=(1, 3, 14, 19), hint=True),
    "role_long_en": v.RoleReveal(12, LONG_ROLE_EN, hint=True),
    "card_unknown": v.CardProblem(v.CardProblemKind.UNKNOWN),
    "card_duplicate": v.CardProblem(v.CardProblemKind.DUPLICATE, other_seat=5),
    "card_twice": v.CardProblem(v.CardProblemKind.TAPPED_TWICE),
    # the dual-card deal (D1-D3): two cards a seat, one after the other; a third card; a void hand
    "tap_card_1": v.TapCard(7, card=1),
    "tap_card_2": v.TapCard(7, card=2),
    "role_card_2": v.RoleReveal(7, "doctor", card=2),
    "card_third": v.CardProblem(v.CardProblemKind.TAPPED_TWICE, hand=2),
    "card_void_hand": v.CardProblem(v.CardProblemKind.VOID_HAND),
    "deck_mismatch": v.CardProblem(v.CardProblemKind.DECK_MISMATCH, missing=(("killer", 1),),
                                   extra=(("civilian", 2),)),
    "deck_mismatch_long": v.CardProblem(
        v.CardProblemKind.DECK_MISMATCH,
        missing=(("secret_police", 1), ("undercover_killer", 1)), extra=(("undercover_police", 2),)),
    # night
    "dark": v.Dark(),
    "eyes_closed": v.EyesClosed(),
    "night_kill": v.NightChoice("kill", 7, CD),
    "night_kill_group": v.NightChoice("kill", 12, CD, partner_picks=((2, 12), (9, 5), (11, 12))),
    "night_confirmed": v.NightChoice("check", 3, v.Countdown(4.2, 30), confirmed=True),
    "night_skip": v.NightChoice("hug", None, CD),
    "night_long": v.NightChoice(LONG_ACTION, 18, v.Countdown(119.5, 120), confirmed=True,
                                partner_picks=((13, 18), (16, None), (19, 18), (20, 17))),
    "police_nod": v.PoliceAnswer(6, v.Answer.NOD),
    "police_shake": v.PoliceAnswer(6, v.Answer.SHAKE),
    "police_none": v.PoliceAnswer(16, v.Answer.NONE),
    # day
    "dead": v.Dead(8),
    "speaking": v.Speaking(11, v.Countdown(61, 90)),
    "speaking_last_words": v.Speaking(20, v.Countdown(29.9, 30), last_words=True),
    "your_speech": v.YourSpeech(v.Countdown(83, 120)),
    "your_speech_warning": v.YourSpeech(v.Countdown(9.5, 120), warning=True),
    "your_last_words": v.YourSpeech(v.Countdown(30, 30), last_words=True),
    "vote_call": v.VoteCall(5, v.Countdown(2.5, 3)),
    "vote_call_voted": v.VoteCall(15, v.Countdown(1.2, 3), voted=True, voted_for=15),
    # the call for seat 5 on a seat whose hand already counted for seat 15: "you voted 15", never a tick by 5
    "vote_call_voted_other": v.VoteCall(5, v.Countdown(1.2, 3), voted=True, voted_for=15),
    "vote_call_abstained": v.VoteCall(5, v.Countdown(1.2, 3), voted=True),
    "vote_counted": v.VoteFeedback(v.VoteResult.COUNTED, 5),
    "vote_late": v.VoteFeedback(v.VoteResult.LATE, 5),
    "vote_already": v.VoteFeedback(v.VoteResult.ALREADY, 5),
    "tally_out": v.Tally(((5, 4), (7, 2), (3, 1)), out=5),
    "tally_tie": v.Tally(((5, 3), (7, 3), (3, 1), (11, 1)), tie=(5, 7)),
    "tally_none": v.Tally(()),
    "tally_many": v.Tally(tuple((s, 1) for s in range(1, 21)), tie=tuple(range(1, 21))[:6]),
    # any time
    "paused": v.Paused(),
    "message": v.Message(v.L10n("请重新发牌", "Redeal"), v.L10n("法官要求重新洗牌并发牌。", "The judge asks for a new shuffle and deal.")),
    "message_plain": v.Message("OK"),
    "game_over_won": v.GameOver("good", "police", won=True),
    "game_over_lost": v.GameOver("killers", "civilian", won=False),
    "game_over_draw": v.GameOver("draw", LONG_ROLE_EN, won=None),
    "game_over_won_2_0": v.GameOver("good", "police", won=True, variant="standard-2.0"),  # 004 §4: 警察一方获胜
    "game_over_lost_2_0": v.GameOver("killers", "civilian", won=False, variant="standard-2.0"),
    "game_over_won_5_identities": v.GameOver("killers", "killer", won=True, variant="five-identities"),
    # the judge's remote
    "judge_seats": v.JudgeSeats(tuple(
        v.JudgeSeat(s, r, alive=s not in (2, 6), note=v.L10n("杀→5", "kill→5") if r == "killer" else "")
        for s, r in enumerate(["killer", "police", "civilian", "doctor", "killer", "secret_police",
                               "civilian", "police", "civilian", "butterfly", "sniper", "elder"], start=1)),
        cursor=6),
    "judge_seats_empty": v.JudgeSeats(()),
    "judge_night": v.JudgeList(v.L10n("第2夜", "Night 2"), (
        v.L10n("杀手: 5号 (2票)", "Killers: seat 5 (2)"), v.L10n("警察: 验3号 → 不是", "Police: 3 → no"),
        v.L10n("医生: 救5号", "Doctor: save 5"), v.L10n("狙击手: 不行动", "Sniper: skip"),
        v.L10n("森林老人: 禁言9号", "Elder: silence 9")), cursor=3),
    "judge_menu_end": v.JudgeList("Menu", tuple(f"Item {i}" for i in range(1, 10)), cursor=8),
    "judge_status": v.JudgeStatus(v.L10n("第1天 · 发言", "Day 1 · speeches"), v.L10n("7号发言", "Seat 7 speaks"),
                                  v.Countdown(44, 90), (v.L10n("存活 10/12", "Alive 10/12"),
                                                         v.L10n("遗言剩余 1", "Last words left: 1"))),
    # the judge's remote as the director draws it (every word in the table's language)
    "judge_game_day": v.JudgeStatus(_words("day", d=2), _words("turn_speech", n=12), v.Countdown(97, 120),
                                    (v.L10n("杀人→8号", "Kill→8"), _words("done_eject", n=5))),
    "judge_game_night": v.JudgeStatus(_words("night", d=3), v.L10n("森林老人禁言", "Forest elder: Silence"), CD,
                                      (v.L10n("杀人→12号", "Kill→12"), v.L10n("验人→10号", "Check→10"))),
    "judge_game_vote": v.JudgeStatus(_words("day", d=1), _words("turn_vote_call", n=11), None,
                                     (v.L10n("医生：不行动", "Doctor: skip"),)),
    "judge_game_menu": v.JudgeList(_words("judge_menu"), tuple(_words(f"cmd_{c}") for c in (
        "pause", "extend", "end_timer", "undo", "eject", "penalty", "surrender", "abort")), cursor=4),
    "judge_ask_seat": v.JudgeAsk(_words("cmd_eject"), _words("seat", n=12), _words("choose_seat")),
    "judge_ask_skip": v.JudgeAsk(_words("cmd_judge_pick"), _words("skip"), _words("choose_seat")),
    "judge_ask_confirm": v.JudgeAsk(_words("cmd_surrender"),
                                    v.L10n("投降：12号？", "Surrender: Seat 12?"), _words("press_again")),
    "judge_done": v.JudgeAsk(_words("cmd_penalty"), _words("done_penalty", n=12, p=2), done=True),
    "judge_refused": v.JudgeAsk(_words("cmd_surrender"), _words("why_partners_alive", n=12), done=False),
    "judge_deal_told": v.JudgeList(_words("judge_deal"), (
        _words("deal_duplicate_card", n=12, uid="04c0000b", m=11), _words("seat_offline", n=7),
        _words("deal_redeal_hint")), cursor=None),
    "dead_ejected": v.Dead(12, "ejected"),
    "penalty_point": v.Message(_words("penalty_title"), _words("penalty_body", p=3)),
    "surrender_ask": v.Message(_words("surrender_ask"), _words("surrender_hint")),
}

#: D2 (dual-card-5.0) screens, drawn with the seat-and-card label: an 8-player table's places 1-16 as "1-1" to
#: "8-2", and the largest table a profile has (16 seats, places up to 32).
D2_SAMPLES: dict[str, v.View] = {
    "d2_night_kill": v.NightChoice("kill", 13, CD),
    "d2_night_check_group": v.NightChoice("check", 31, CD, partner_picks=((3, 31), (20, 14), (28, None))),
    "d2_police_nod": v.PoliceAnswer(14, v.Answer.NOD),
    "d2_vote_call": v.VoteCall(13, v.Countdown(1.5, 2)),
    "d2_vote_call_voted": v.VoteCall(32, v.Countdown(1.2, 2), voted=True, voted_for=32),
    "d2_vote_call_voted_other": v.VoteCall(13, v.Countdown(1.2, 2), voted=True, voted_for=32),
    "d2_vote_counted": v.VoteFeedback(v.VoteResult.COUNTED, 13),
    "d2_tally_out": v.Tally(((13, 5), (4, 3), (30, 2), (7, 1)), out=13),
    "d2_tally_tie": v.Tally(((13, 4), (4, 4), (30, 2), (7, 1), (21, 1)), tie=(13, 4)),
    "d2_role_killer": v.RoleReveal(13, "killer", partners=(4, 30), hint=True),
    "d2_tap_card_2": v.TapCard(14, card=2),
    "d2_role_card_1": v.RoleReveal(13, "secret_police", card=1),
    "d2_dead": v.Dead(14),
    "d2_judge_seats": v.JudgeSeats(tuple(
        v.JudgeSeat(p, "killer" if p in (3, 14) else "civilian", alive=p != 5) for p in range(1, 17)), cursor=13),
    "d2_judge_game": v.JudgeStatus(_words("day", d=2), _words("turn_last_words", n="16-2"), v.Countdown(3, 30),
                                   (v.L10n("杀人→15-1号", "Kill→15-1"), _words("done_eject", n="16-2"))),
    # the judge's turn line with a place label is wider than the panel: it wraps, the newest status line stays
    "d2_judge_status": v.JudgeStatus("vote 2/2", "last_words.executed: 8-1", v.Countdown(3, 30),
                                     ("kill→7-1", "save→3-2")),
}
