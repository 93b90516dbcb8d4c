"""KeyPool on a fake clock: round-robin, per-key retries, Retry-After, last good key, masking.

No HTTP here: attempts are plain functions raising test exceptions that carry their
:class:`Failure`; the contract tests (tests/contract/test_openai_*.py) drive the same pool through
the official openai client and a real local server.
"""

from __future__ import annotations

import email.utils
import logging
import threading

import pytest

from desktop_agent.core.backends.keypool import (
    Failure,
    KeyPool,
    PoolCancelled,
    Wait,
    format_seconds,
    mask_key,
    parse_retry_after,
    scrub,
)
from desktop_agent.core.errors import (
    AllKeysFailed,
    AuthenticationFailed,
    BackendError,
    BackendUnreachable,
    NoApiKey,
    RateLimited,
)

KEYS = ["sk-first-key-AAAAAAAAAAAA111", "sk-second-key-BBBBBBBBBBB222", "sk-third-key-CCCCCCCCCCCC333"]
BASE = "https://api.example.test/v1"


class FakeClock:
    """Wall clock and sleep that only move when sleep is called."""

    def __init__(self, now: float = 1_750_000_000.0):
        self.now = now
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Fail(Exception):
    def __init__(self, failure: Failure):
        super().__init__(str(failure.error))
        self.failure = failure


def classify(exc: BaseException) -> Failure:
    assert isinstance(exc, Fail), exc
    return exc.failure


def rate_limited(after: float | None = None) -> Fail:
    return Fail(
        Failure("retry", RateLimited(after, "slow down"), retry_after_s=after, status=429, reason="rate limited")
    )


def auth(status: int = 401) -> Fail:
    return Fail(
        Failure("next_key", AuthenticationFailed(BASE, status), auth=True, status=status, reason="key rejected")
    )


def unreachable() -> Fail:
    return Fail(Failure("retry", BackendUnreachable(BASE, "openai", "refused"), rotate=False, reason="can't reach"))


def server_error() -> Fail:
    return Fail(Failure("retry", BackendError("boom", 503), status=503, reason="server error (HTTP 503)"))


class Script:
    """attempt(index, key): pops the next outcome (an exception to raise, or a value to return)."""

    def __init__(self, *outcomes):
        self.outcomes = list(outcomes)
        self.calls: list[tuple[int, str]] = []

    def __call__(self, index: int, key: str):
        self.calls.append((index, key))
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome


def make_pool(keys=KEYS, clock: FakeClock | None = None, **kw) -> tuple[KeyPool, FakeClock]:
    clock = clock or FakeClock()
    kw.setdefault("retries_per_key", 2)
    kw.setdefault("retry_interval_s", 1.0)
    kw.setdefault("max_retry_after_s", 60.0)
    return KeyPool(keys, base_url=BASE, sleep=clock.sleep, clock=clock.time, **kw), clock


def drive(pool: KeyPool, attempt, cancel=None) -> tuple[object, list[Wait]]:
    waits: list[Wait] = []
    result = pool.call(attempt, classify, cancel=cancel, on_wait=waits.append)
    return result, waits


# -- masking ------------------------------------------------------------------------------------
def test_mask_key_keeps_prefix_and_last_three_only():
    assert mask_key("sk-abcdefghijklmnopxyz") == "sk-…xyz"
    assert mask_key("gsk_abcdefghijklmnop123") == "…123"
    assert mask_key("short") == "…"  # too short to show any of it
    assert mask_key("sk-12345") == "sk-…"
    assert mask_key("") == "(none)"


def test_scrub_replaces_every_key_in_text():
    text = f"server said: key {KEYS[0]} is wrong, and {KEYS[1]}"
    out = scrub(text, KEYS)
    assert KEYS[0] not in out and KEYS[1] not in out
    assert "sk-…111" in out and "sk-…222" in out


def test_repr_and_logs_never_show_a_key(caplog):
    pool, _ = make_pool()
    assert all(k not in repr(pool) for k in KEYS)
    assert "sk-…111" in repr(pool)
    caplog.set_level(logging.DEBUG)
    with pytest.raises(AuthenticationFailed) as info:
        drive(pool, Script(auth(), auth(), auth()))
    logged = caplog.text
    assert logged  # the pool did log its key changes
    for key in KEYS:
        assert key not in logged and key not in str(info.value) and key not in repr(info.value)


def test_format_seconds():
    assert format_seconds(2.0) == "2"
    assert format_seconds(0.25) == "0.2"
    assert format_seconds(1.5) == "1.5"
    assert format_seconds(42.4) == "42"


# -- Retry-After parsing ------------------------------------------------------------------------
def test_parse_retry_after_seconds_ms_and_date():
    clock = FakeClock()
    assert parse_retry_after({"Retry-After": "2"}, clock.time) == 2.0
    assert parse_retry_after({"retry-after": "0.2"}, clock.time) == pytest.approx(0.2)
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}, clock.time) == 1.5
    date = email.utils.formatdate(clock.now + 120, usegmt=True)
    assert parse_retry_after({"Retry-After": date}, clock.time) == pytest.approx(120)
    past = email.utils.formatdate(clock.now - 30, usegmt=True)
    assert parse_retry_after({"Retry-After": past}, clock.time) == 0.0
    assert parse_retry_after({"Retry-After": "soon"}, clock.time) is None
    assert parse_retry_after({}, clock.time) is None
    assert parse_retry_after(None, clock.time) is None


# -- the loop -----------------------------------------------------------------------------------
def test_success_first_try_no_wait():
    pool, clock = make_pool()
    result, waits = drive(pool, Script("ok"))
    assert result == "ok" and waits == [] and clock.sleeps == []
    assert pool.last_good == 0


def test_retry_after_is_waited_then_success():
    """shared case 20-openai-429-retry-after.json (pool level): wait exactly the server's 2 s."""
    pool, clock = make_pool()
    attempt = Script(rate_limited(2.0), "answer")
    result, waits = drive(pool, attempt)
    assert result == "answer"
    assert clock.sleeps == [2.0]
    assert [w.notice() for w in waits] == ["rate limited — retrying in 2 s"]
    assert [i for i, _ in attempt.calls] == [0, 0]  # same key retried


def test_no_retry_after_uses_retry_interval():
    pool, clock = make_pool(retry_interval_s=0.5)
    drive(pool, Script(server_error(), "ok"))
    assert clock.sleeps == [0.5]


def test_retry_after_above_cap_is_not_waited():
    """shared case 20-openai-429-retry-after.json, long_wait_variant: 3600 s → RateLimited now."""
    pool, clock = make_pool(keys=KEYS[:1])
    attempt = Script(rate_limited(3600.0))
    with pytest.raises(RateLimited) as info:
        drive(pool, attempt)
    assert info.value.retry_after_s == 3600.0
    assert "about 60 minutes" in str(info.value)
    assert clock.sleeps == [] and len(attempt.calls) == 1


def test_long_retry_after_moves_to_the_next_key_without_waiting():
    pool, clock = make_pool(keys=KEYS[:2])
    attempt = Script(rate_limited(3600.0), "ok")
    result, _ = drive(pool, attempt)
    assert result == "ok" and clock.sleeps == []
    assert [i for i, _ in attempt.calls] == [0, 1]
    assert pool.last_good == 1


def test_retries_per_key_are_bounded_then_next_key():
    pool, clock = make_pool(keys=KEYS[:2], retries_per_key=2)
    attempt = Script(rate_limited(1), rate_limited(1), rate_limited(1), "ok")
    result, waits = drive(pool, attempt)
    assert result == "ok"
    assert [i for i, _ in attempt.calls] == [0, 0, 0, 1]
    assert clock.sleeps == [1, 1]  # no pause before switching keys
    assert [w.attempt for w in waits] == [1, 2]


def test_every_key_rate_limited_gives_rate_limited_with_shortest_wait():
    pool, _ = make_pool(keys=KEYS[:2], retries_per_key=0)
    with pytest.raises(RateLimited) as info:
        drive(pool, Script(rate_limited(30), rate_limited(5)))
    assert info.value.retry_after_s == 5
    assert "2 keys" in str(info.value)


def test_auth_failure_moves_to_next_key_at_once_and_remembers_good_key():
    pool, clock = make_pool()
    first = Script(auth(), "ok")
    assert drive(pool, first)[0] == "ok"
    assert [i for i, _ in first.calls] == [0, 1]
    assert clock.sleeps == []
    assert pool.last_good == 1
    second = Script("again")
    drive(pool, second)
    assert second.calls[0] == (1, KEYS[1])  # starts from the last key that worked


def test_round_robin_wraps_around():
    pool, _ = make_pool()
    drive(pool, Script(auth(), auth(), "ok"))
    assert pool.last_good == 2
    attempt = Script(auth(), "ok")
    drive(pool, attempt)
    assert [i for i, _ in attempt.calls] == [2, 0]
    assert pool.order() == [0, 1, 2]


def test_all_keys_rejected_gives_authentication_failed_with_count():
    pool, clock = make_pool()
    attempt = Script(auth(), auth(403), auth())
    with pytest.raises(AuthenticationFailed) as info:
        drive(pool, attempt)
    assert info.value.keys_tried == 3
    assert "All 3 keys were rejected" in str(info.value)
    assert BASE in str(info.value)
    assert len(attempt.calls) == 3 and clock.sleeps == []


def test_connection_errors_are_retried_but_do_not_rotate_keys():
    pool, clock = make_pool(retries_per_key=2)
    attempt = Script(unreachable(), unreachable(), unreachable())
    with pytest.raises(BackendUnreachable):
        drive(pool, attempt)
    assert [i for i, _ in attempt.calls] == [0, 0, 0]
    assert clock.sleeps == [1.0, 1.0]


def test_mixed_failures_over_several_keys_give_all_keys_failed():
    pool, _ = make_pool(keys=KEYS[:2], retries_per_key=0)
    with pytest.raises(AllKeysFailed) as info:
        drive(pool, Script(auth(), server_error()))
    err = info.value
    assert err.keys_tried == 2
    assert "boom" in err.last_reason and "HTTP 503" in str(err)
    assert isinstance(err.last_error, BackendError)


def test_single_key_gives_the_failure_itself():
    pool, _ = make_pool(keys=KEYS[:1], retries_per_key=1)
    with pytest.raises(BackendError) as info:
        drive(pool, Script(server_error(), server_error()))
    assert info.value.status == 503


def test_fatal_failure_is_raised_at_once():
    pool, clock = make_pool()
    fatal = Fail(Failure("fatal", BackendError("bad request", 400)))
    attempt = Script(fatal)
    with pytest.raises(BackendError):
        drive(pool, attempt)
    assert len(attempt.calls) == 1 and clock.sleeps == []


def test_no_keys_raises_no_api_key_naming_the_fix():
    pool, _ = make_pool(keys=[])
    with pytest.raises(NoApiKey) as info:
        drive(pool, Script("never"))
    text = str(info.value)
    assert BASE in text and "OPENAI_API_KEY" in text and "Settings" in text
    # no key was rejected: a sibling of AuthenticationFailed, not a kind of it (the fix differs)
    assert not isinstance(info.value, AuthenticationFailed) and not info.value.retryable


def test_blank_keys_are_ignored():
    pool, _ = make_pool(keys=["", "  ", KEYS[0]])
    assert len(pool) == 1


def test_http_date_retry_after_on_fake_clock():
    clock = FakeClock()
    pool, _ = make_pool(clock=clock)
    headers = {"Retry-After": email.utils.formatdate(clock.now + 7, usegmt=True)}
    wait = pool.retry_after(headers)
    drive(pool, Script(rate_limited(wait), "ok"))
    assert clock.sleeps == [pytest.approx(7)]


def test_cancel_during_pause_stops_the_loop():
    cancel = threading.Event()
    clock = FakeClock()

    def sleep(seconds):
        clock.sleep(seconds)
        cancel.set()  # the user pressed Stop while we waited

    pool = KeyPool(KEYS, base_url=BASE, sleep=sleep, clock=clock.time)
    attempt = Script(rate_limited(2), "never")
    with pytest.raises(PoolCancelled):
        drive(pool, attempt, cancel=cancel)
    assert len(attempt.calls) == 1


def test_real_sleep_pause_returns_early_on_cancel():
    pool = KeyPool(KEYS, base_url=BASE)  # real time.sleep → waits on the cancel event
    cancel = threading.Event()
    cancel.set()
    assert pool.pause(30, cancel) is False


def test_generator_yields_wait_before_sleeping():
    pool, clock = make_pool()
    gen = pool.run(Script(rate_limited(2), "ok"), classify)
    wait = next(gen)
    assert wait == Wait(2, "rate limited", 0, 1)
    assert clock.sleeps == []  # not slept yet: the caller can show the notice first
    with pytest.raises(StopIteration) as stop:
        next(gen)
    assert stop.value.value == "ok" and clock.sleeps == [2]
