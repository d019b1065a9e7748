"""A script's :class:`Ask`: the answer another thread gives, an error, or the deadline (RULES C5), on the loop."""

from __future__ import annotations

from concurrent.futures import Future

import pytest

from controller.diag.script import Answer, Ask, Script, ScriptRunner
from controller.director.clock import VirtualScheduler


def asking(future: Future[object], seconds: float = 2.0) -> Script:
    answer = yield Ask(seconds, lambda: future, "seat 4: reading card 04AA")
    return answer


def run(script: Script, clock: VirtualScheduler) -> ScriptRunner:
    runner = ScriptRunner(clock, script)
    runner.start()
    clock.run(max_time=0.0)  # the script starts and asks; nothing later has happened yet
    return runner


def test_the_answer_given_later_resumes_the_script_with_it() -> None:
    clock, future = VirtualScheduler(), Future[object]()
    runner = run(asking(future), clock)
    clock.call_at(0.5, lambda: future.set_result(("杀手",)))
    clock.run(until=lambda: runner.done)
    assert runner.result == Answer(value=("杀手",))
    assert clock.now() == pytest.approx(0.5)


def test_a_failed_read_resumes_with_its_message() -> None:
    clock, future = VirtualScheduler(), Future[object]()
    runner = run(asking(future), clock)
    clock.call_at(0.1, lambda: future.set_exception(RuntimeError("seat 4: card 04AA is no longer on the reader")))
    clock.run(until=lambda: runner.done)
    assert runner.result == Answer(error="seat 4: card 04AA is no longer on the reader")


def test_no_answer_by_the_deadline_is_an_error_and_a_late_answer_is_dropped() -> None:
    clock, future = VirtualScheduler(), Future[object]()
    runner = run(asking(future, seconds=2.0), clock)
    clock.run(until=lambda: runner.done)
    assert runner.result == Answer(error="seat 4: reading card 04AA: no answer within 2 s")
    assert clock.now() == pytest.approx(2.0)
    future.set_result(("late",))  # nobody is asking any more: nothing breaks
    clock.run()
    assert runner.result.error is not None


def test_an_ask_needs_a_deadline() -> None:
    with pytest.raises(ValueError, match="C5"):
        Ask(float("inf"), Future)
