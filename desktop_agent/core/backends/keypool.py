"""Several API keys for one OpenAI-compatible provider: round-robin, per-key retries, last good key.

The rules, made explicit and testable:

- no key at all: :class:`~desktop_agent.core.errors.NoApiKey` before any request;
- keys are tried in order, starting from the last key that worked;
- on a *retryable* failure (connection error, HTTP 429, HTTP 5xx) the same key is retried up to
  ``retries_per_key`` times, waiting ``retry_interval_s`` or the server's ``Retry-After`` (seconds,
  ``retry-after-ms``, or an HTTP date — RFC 9110 §10.2.3), capped at ``max_retry_after_s``;
- a ``Retry-After`` longer than the cap is never waited for: that key is given up at once and, when no
  other key is left, :class:`~desktop_agent.core.errors.RateLimited` is raised with the wait;
- 401/403 moves on to the next key at once (retrying a rejected key never helps);
- a key out of quota (HTTP 429 ``insufficient_quota``) is like a rejected key, not like a rate limit: its
  account has no credit, and waiting does not give it any — the next key is tried at once, each key once,
  with no pause; when every key is out of quota: :class:`~desktop_agent.core.errors.OutOfQuota` (says how many);
- a connection error is not the key's fault: after the retries the pool stops instead of trying every
  other key against a server that is down;
- when every key fails: :class:`AuthenticationFailed` (all were rejected, says how many),
  :class:`OutOfQuota` (all were out of quota), :class:`RateLimited` (all were rate limited), the failure
  itself (one key), or
  :class:`AllKeysFailed` (how many keys, the last reason).

The pool knows nothing about HTTP clients: the caller gives an ``attempt(index, key)`` function and a
``classify(exception) -> Failure`` function. :meth:`KeyPool.run` is a generator that yields a
:class:`Wait` before every pause, so a streaming backend can show "rate limited — retrying in 2 s"
before it sleeps; :meth:`KeyPool.call` drives it without notices. ``sleep`` and ``clock`` are
injected so tests run on a fake clock.

A key never appears in a log line, an exception text or a ``repr``: use :func:`mask_key`.
"""

from __future__ import annotations

import email.utils
import logging
import math
import threading
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from desktop_agent.core.errors import (
    AgentError,
    AllKeysFailed,
    AuthenticationFailed,
    NoApiKey,
    OutOfQuota,
    RateLimited,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

#: What a local server that needs no key gets instead (the openai client refuses an empty key).
PLACEHOLDER_KEY = "not-needed"


def mask_key(key: str | None) -> str:
    """A key as it may be shown or logged: ``"sk-abc…789xyz"`` → ``"sk-…xyz"``.

    Keeps an ``sk-`` prefix and, for keys of 12 characters or more, the last three characters; a
    shorter key shows nothing of itself (``"…"``).
    """
    if not key:
        return "(none)"
    if key == PLACEHOLDER_KEY:
        return PLACEHOLDER_KEY
    prefix = "sk-" if key.startswith("sk-") else ""
    tail = key[-3:] if len(key) >= 12 else ""
    return f"{prefix}…{tail}"


def scrub(text: str, keys: Sequence[str]) -> str:
    """``text`` with every occurrence of any of ``keys`` replaced by its :func:`mask_key` form."""
    for key in sorted((k for k in keys if k and k != PLACEHOLDER_KEY), key=len, reverse=True):
        # the key itself, and the escaped forms a bytes/str repr in an exception message shows
        # (httpx: "Illegal header value b'Bearer sk-a\\nsk-b'")
        forms = {key, key.encode("unicode_escape").decode("ascii"), repr(key.encode("utf-8"))[2:-1]}
        for form in sorted(forms, key=len, reverse=True):
            if form in text:
                text = text.replace(form, mask_key(key))
    return text


def format_seconds(seconds: float) -> str:
    """``2.0`` → ``"2"``, ``0.25`` → ``"0.2"``, ``1.5`` → ``"1.5"`` (for notices)."""
    if seconds >= 10 or float(seconds).is_integer():
        return str(round(seconds))
    return f"{seconds:.1f}".rstrip("0").rstrip(".") or "0"


def parse_retry_after(headers: Mapping[str, str] | None, now: Callable[[], float] = time.time) -> float | None:
    """Seconds to wait according to ``retry-after-ms`` / ``Retry-After`` (None when absent or bad).

    ``Retry-After`` is either delay-seconds (non-standard floats accepted) or an HTTP date, read
    relative to ``now()`` (seconds since the epoch). Negative results become 0.
    """
    if not headers:
        return None
    lower = {str(k).lower(): str(v) for k, v in headers.items()}
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lower.get(name)
        if value is None:
            continue
        try:
            delay = float(value.strip())
        except ValueError:
            continue
        if math.isnan(delay):
            continue
        return max(0.0, delay / divisor)
    value = lower.get("retry-after")
    if not value:
        return None
    try:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        when = email.utils.mktime_tz(parsed)
    except (TypeError, ValueError, OverflowError):
        return None
    return max(0.0, float(when - now()))


@dataclass
class Failure:
    """How one failed attempt is handled.

    - ``kind``: ``"retry"`` (connection, 429, 5xx: retry this key after a pause), ``"next_key"``
      (401/403, out of quota: try the next key at once) or ``"fatal"`` (raise ``error`` now).
    - ``error``: the typed error for this failure (raised if it is the last one); no key in its text.
    - ``retry_after_s``: the server's Retry-After in seconds, if any.
    - ``rotate``: whether another key can help (False for connection errors).
    - ``auth``: the key was rejected (401/403); ``status`` the HTTP status.
    - ``reason``: a few words for the notice, e.g. ``"rate limited"``.
    """

    kind: Literal["retry", "next_key", "fatal"]
    error: AgentError
    retry_after_s: float | None = None
    rotate: bool = True
    auth: bool = False
    status: int | None = None
    reason: str = "request failed"


@dataclass(frozen=True)
class Wait:
    """A pause the pool is about to take before retrying: ``seconds``, the ``reason`` and which
    ``key_index`` / ``attempt`` (1 = first retry) it is for."""

    seconds: float
    reason: str
    key_index: int
    attempt: int

    def notice(self) -> str:
        """The transient status for the user: ``"rate limited — retrying in 2 s"``."""
        return f"{self.reason} — retrying in {format_seconds(self.seconds)} s"


class PoolCancelled(Exception):
    """Raised by :meth:`KeyPool.run` when ``cancel`` was set during a pause."""


class KeyPool:
    """Round-robin over ``keys`` with per-key retries. Thread-safe for concurrent callers.

    ``keys``: the API keys (an empty list is allowed only with a placeholder, see the backend).
    ``retries_per_key``: extra attempts per key on retryable failures (0 = one attempt per key).
    ``retry_interval_s``: the pause when the server gives no Retry-After.
    ``max_retry_after_s``: the longest Retry-After that is waited for.
    ``sleep(seconds)`` and ``clock() -> epoch seconds`` are injectable.
    """

    def __init__(
        self,
        keys: Sequence[str],
        *,
        base_url: str = "",
        retries_per_key: int = 2,
        retry_interval_s: float = 1.0,
        max_retry_after_s: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ):
        self._keys = [k for k in (str(k).strip() for k in keys) if k]
        self.base_url = base_url
        self.retries_per_key = max(0, int(retries_per_key))
        self.retry_interval_s = max(0.0, float(retry_interval_s))
        self.max_retry_after_s = max(0.0, float(max_retry_after_s))
        self._sleep = sleep
        self.clock = clock
        self._lock = threading.Lock()
        self._last_good = 0
        #: the error for a pool without keys (:class:`KeyringLocked` when the keyring could not be read)
        self.no_key: Callable[[str], AgentError] = NoApiKey

    # -- keys, never shown in full -------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        masked = ", ".join(mask_key(k) for k in self._keys)
        return f"KeyPool([{masked}], last_good={self._last_good})"

    def key(self, index: int) -> str:
        """The key at ``index`` (for building a client; never log it)."""
        return self._keys[index]

    def masked(self, index: int) -> str:
        return mask_key(self._keys[index])

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(self._keys)

    @property
    def last_good(self) -> int:
        """Index of the key that worked last; the next call starts there."""
        return self._last_good

    def order(self) -> list[int]:
        """Key indexes in the order the next call tries them."""
        n = len(self._keys)
        with self._lock:
            start = self._last_good % n if n else 0
        return [(start + i) % n for i in range(n)]

    def retry_after(self, headers: Mapping[str, str] | None) -> float | None:
        """:func:`parse_retry_after` on this pool's clock."""
        return parse_retry_after(headers, self.clock)

    # -- pausing ------------------------------------------------------------------------------
    def pause(self, seconds: float, cancel: threading.Event | None = None) -> bool:
        """Wait ``seconds``; returns False when ``cancel`` is (or gets) set. With the real
        ``time.sleep`` and a cancel event, the wait ends as soon as cancel is set."""
        if cancel is not None and cancel.is_set():
            return False
        if cancel is not None and self._sleep is time.sleep:
            return not cancel.wait(seconds)
        self._sleep(seconds)
        return not (cancel is not None and cancel.is_set())

    # -- the loop -----------------------------------------------------------------------------
    def run(
        self,
        attempt: Callable[[int, str], T],
        classify: Callable[[BaseException], Failure],
        cancel: threading.Event | None = None,
    ) -> Generator[Wait, None, T]:
        """Try ``attempt(index, key)`` over the keys; yields a :class:`Wait` before each pause and
        returns ``attempt``'s result (``value = yield from pool.run(...)``).

        ``classify`` turns an exception raised by ``attempt`` into a :class:`Failure`; exceptions
        that are not ``Exception`` subclasses (KeyboardInterrupt…) propagate untouched.
        Raises the typed errors described in the module docstring, or :class:`PoolCancelled`.
        """
        if not self._keys:
            raise self.no_key(self.base_url)
        order = self.order()
        failures: list[Failure] = []
        tried = 0
        for index in order:
            tried += 1
            retries = 0
            while True:
                try:
                    result = attempt(index, self._keys[index])
                except Exception as exc:  # noqa: BLE001 — classified below
                    failure = classify(exc)
                else:
                    with self._lock:
                        self._last_good = index
                    if tried > 1 or retries:
                        log.info("request succeeded with key %s (#%d)", self.masked(index), index + 1)
                    return result

                if failure.kind == "fatal":
                    raise failure.error
                log.info(
                    "key %s (#%d): %s (%s)",
                    self.masked(index), index + 1, failure.reason, failure.status or type(failure.error).__name__,
                )
                if failure.kind == "retry" and failure.retry_after_s is not None \
                        and failure.retry_after_s > self.max_retry_after_s:
                    # Never block for an hour: give up this key now.
                    failure.kind = "next_key"
                    if not isinstance(failure.error, RateLimited):
                        failure.error = RateLimited(failure.retry_after_s, str(failure.error))
                if failure.kind == "retry" and retries < self.retries_per_key:
                    retries += 1
                    seconds = failure.retry_after_s if failure.retry_after_s is not None else self.retry_interval_s
                    yield Wait(seconds, failure.reason, index, retries)
                    if not self.pause(seconds, cancel):
                        raise PoolCancelled()
                    continue
                failures.append(failure)
                if not failure.rotate:
                    raise failure.error
                break
        raise self._final_error(failures, tried)

    def call(
        self,
        attempt: Callable[[int, str], T],
        classify: Callable[[BaseException], Failure],
        cancel: threading.Event | None = None,
        on_wait: Callable[[Wait], Any] | None = None,
    ) -> T:
        """:meth:`run` driven to the end; ``on_wait(wait)`` is called before each pause."""
        gen = self.run(attempt, classify, cancel)
        while True:
            try:
                wait = next(gen)
            except StopIteration as stop:
                return stop.value
            if on_wait is not None:
                on_wait(wait)

    def _final_error(self, failures: list[Failure], tried: int) -> AgentError:
        last = failures[-1]
        if all(f.auth for f in failures):
            return AuthenticationFailed(self.base_url, last.status, keys_tried=tried)
        if all(isinstance(f.error, OutOfQuota) for f in failures):
            return OutOfQuota(self.base_url, str(getattr(last.error, "detail", "")), keys_tried=tried)
        limited = [f.error for f in failures if isinstance(f.error, RateLimited)]
        if len(limited) == len(failures):
            waits = [e.retry_after_s for e in limited if e.retry_after_s is not None]
            detail = limited[-1].detail
            if tried > 1:
                detail = (detail + " " if detail else "") + f"(all {tried} keys are rate limited)"
            return RateLimited(min(waits) if waits else None, detail)
        if tried == 1:
            return last.error
        err = AllKeysFailed(tried, str(last.error))
        err.last_error = last.error  # type: ignore[attr-defined]
        return err
