"""Pairing and sessions as the rules of the door (controller/web/access.py), on an injected clock."""

from __future__ import annotations

import itertools

from controller.web.access import Access, Paired, Refusal


def door(**kw) -> Access:
    codes = itertools.cycle([123456, 654321, 111111, 222222])
    return Access(code_source=lambda n: next(codes), **kw)


def test_the_code_on_the_board_pairs_one_phone_once():
    a = door()
    assert a.code(0) == "123456"
    paired = a.pair("123456", "10.0.0.5", "phone", 1)
    assert isinstance(paired, Paired) and a.session(paired.token, 2) is paired.session
    # single use: the same code again is refused, and with one phone's place taken no code is on show
    again = a.pair("123456", "10.0.0.6", "thief", 3)
    assert isinstance(again, Refusal) and again.status == 403
    assert a.code(4) is None


def test_a_code_expires_and_the_board_gets_a_new_one():
    a = door(code_ttl_s=300)
    assert a.code(0) == "123456"
    late = a.pair("123456", "10.0.0.5", "phone", 301)
    assert isinstance(late, Refusal)
    assert a.code(301) == "654321"


def test_wrong_codes_from_one_phone_make_it_wait_longer_each_time():
    a = door(tries=5, lockout_s=30)
    a.code(0)
    answers = [a.pair("000000", "10.0.0.9", "guesser", 1 + i) for i in range(5)]
    assert all(isinstance(r, Refusal) for r in answers)
    assert answers[0].en == "wrong code (4 tries left)"
    assert answers[-1].status == 429 and answers[-1].retry_after == 30
    # even the right code is refused while it waits
    assert isinstance(a.pair(a.code(10) or "", "10.0.0.9", "guesser", 10), Refusal)
    for i in range(5):
        last = a.pair("000000", "10.0.0.9", "guesser", 40 + i)
    assert isinstance(last, Refusal) and last.retry_after == 60  # the second wait is twice as long
    # another phone is not held up by the guesser
    assert isinstance(a.pair(a.code(45) or "", "10.0.0.5", "judge", 45), Paired)


def test_guesses_from_many_addresses_close_pairing_to_the_guessers_and_the_judge_still_pairs():
    a = door(table_tries=20, tries=5, window_s=60)
    code = a.code(0)
    for i in range(20):
        a.pair("000000", f"10.0.1.{i}", "botnet", 1)
    # a guesser who now sends the right code is refused without its code being looked at ...
    closed = a.pair(code or "", "10.0.1.3", "botnet", 2)
    assert isinstance(closed, Refusal) and closed.status == 429 and "reopens" in closed.en
    # ... while the judge's phone, which sent no wrong code, pairs with the code on the board
    assert isinstance(a.pair(code or "", "10.0.0.5", "judge", 2), Paired)


def test_wrong_guesses_never_change_the_code_under_the_judges_fingers():
    a = door(table_tries=1000, tries=1000)
    first = a.code(0)
    for i in range(200):
        a.pair("999999", f"10.0.2.{i}", "guesser", 1 + i / 10)
    assert a.code(30) == first


def test_while_pairing_is_closed_a_new_address_gets_one_guess_and_then_waits_with_the_others():
    a = door(table_tries=20, tries=5, window_s=60)
    for i in range(20):
        a.pair("000000", f"10.0.1.{i}", "botnet", 1)
    first = a.pair("000001", "10.0.3.1", "new address", 2)
    assert isinstance(first, Refusal) and first.status == 403  # looked at: a wrong code
    again = a.pair("000002", "10.0.3.1", "new address", 3)
    assert isinstance(again, Refusal) and again.status == 429  # now it is a guesser too


def test_a_judge_who_mistyped_during_an_attack_renews_the_code_at_the_table_and_pairs():
    a = door(table_tries=20, tries=5, window_s=60)
    old = a.code(0)
    a.pair("000000", "10.0.0.5", "judge", 1)  # the judge's thumb slipped
    for i in range(20):
        a.pair("000000", f"10.0.1.{i}", "botnet", 2)
    assert isinstance(a.pair(old or "", "10.0.0.5", "judge", 3), Refusal)  # the judge counts as a guesser now
    a.renew(4)  # the judge holds BACK: a new code, and the limits start again with it
    new = a.code(4)
    assert new != old
    for i in range(20):  # the guessers close pairing again at once ...
        a.pair("000000", f"10.0.1.{i}", "botnet", 5)
    assert isinstance(a.pair(new or "", "10.0.0.5", "judge", 6), Paired)  # ... and the judge pairs all the same


def test_an_hour_of_guessing_from_a_hundred_addresses_gets_at_most_1200_guesses_and_one_more_per_address():
    """The arithmetic of docs/security.md: while pairing is open at most ``table_tries`` wrong codes a minute
    (1,200 an hour) are looked at; while it is closed only an address that sent no wrong code in the last hour
    is, once. So an attacker holding A addresses gets at most 1,200 + A guesses an hour, each one chance in a
    million."""
    a = door(table_tries=20, tries=5, window_s=60, lockout_s=30, code_ttl_s=300)
    addresses = [f"10.0.{i // 250}.{i % 250}" for i in range(100)]
    looked_at = {ip: 0 for ip in addresses}
    t = 0.0
    while t < 3600:
        for ip in addresses:  # every address tries a code every two seconds, all hour long
            answer = a.pair("000000" if a.code(t) != "000000" else "000001", ip, "botnet", t)
            if isinstance(answer, Refusal) and answer.en.startswith("wrong code"):  # its code was looked at
                looked_at[ip] += 1
        t += 2
    total = sum(looked_at.values())
    assert total <= 1200 + len(addresses), total


def test_a_command_counter_must_grow_and_the_csrf_token_must_match():
    a = door()
    p = a.pair(a.code(0) or "", "10.0.0.5", "phone", 1)
    assert isinstance(p, Paired)
    csrf = p.session.csrf
    assert a.check_call(p.token, csrf, 1, 2) is p.session
    replay = a.check_call(p.token, csrf, 1, 3)
    assert isinstance(replay, Refusal) and replay.status == 409
    assert isinstance(a.check_call(p.token, "forged", 2, 3), Refusal)
    assert isinstance(a.check_call(p.token, csrf, "2", 3), Refusal)  # a counter is a number
    assert a.check_call(p.token, csrf, 5, 4) is p.session


def test_the_judge_at_the_table_revokes_every_phone_and_a_new_code_appears():
    a = door(phones=2)
    p1 = a.pair(a.code(0) or "", "10.0.0.5", "judge", 1)
    p2 = a.pair(a.code(1) or "", "10.0.0.7", "thief", 2)
    assert isinstance(p1, Paired) and isinstance(p2, Paired)
    assert a.code(3) is None
    assert a.revoke_all(4) == 2
    assert a.session(p1.token, 5) is None and a.session(p2.token, 5) is None
    assert a.code(5) is not None
    stolen = a.check_call(p2.token, p2.session.csrf, 99, 6)
    assert isinstance(stolen, Refusal) and stolen.status == 401


def test_a_session_ends_after_its_time():
    a = door(session_ttl_s=100)
    p = a.pair(a.code(0) or "", "10.0.0.5", "judge", 1)
    assert isinstance(p, Paired)
    assert a.session(p.token, 100) is not None
    assert a.session(p.token, 101) is None
