"""Token counts estimated offline — no tokenizer is downloaded — and calibrated by what servers report.

The estimate is the usual rule of thumb: about four characters a token for ASCII text, about one token a
character for other scripts (Chinese, Japanese…; measured by UTF-8 bytes / 3), plus a few tokens of
chat-template overhead per message. It is cheap (``len`` and ``str.isascii`` run in C), so choosing a
history by it stays fast for long chats.

:class:`Calibration` learns, per server and model, the ratio between the prompt tokens the server reported
(Ollama ``prompt_eval_count``, OpenAI ``usage.prompt_tokens``) and our raw estimate of the same request, and
multiplies later estimates by it. Only ratios of 0.7 and more are learned: a much smaller count is a server
that reused a cached prompt prefix (Ollama counts only the tokens it evaluated) or that cut the prompt — and
under-estimating is what overflows a window, while over-estimating only sends a little less. When a server
refused a prompt as too long, the size it refused is remembered as a limit below which later requests stay, and
the window its error named (``ContextTooLong.window``) as that model's window on that server; when the error also
says how many tokens the server counted in the refused request, that count against our estimate of the same request
is learned as the ratio at once (a small model's tokenizer may count 1.7 times our estimate: asked again without
it, the shorter request would be refused too).
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Sequence
from typing import Any

from desktop_agent.core.messages import Message, images_of, text_for_model

#: tokens a chat template adds per message (role markers, separators)
MESSAGE_OVERHEAD = 4
#: what an attached image costs, about (vision models take a few hundred to a thousand and more tokens)
IMAGE_TOKENS = 800
#: ratios between reported and estimated prompt tokens that are learned (outside: cache hits, cut prompts)
LEARN_RANGE = (0.7, 3.0)
#: how much a new sample moves the learned ratio
_WEIGHT = 0.5


def estimate_text(text: str) -> int:
    """Estimated tokens of ``text`` (not calibrated)."""
    if not text:
        return 0
    if text.isascii():
        return (len(text) + 3) // 4
    return (len(text.encode("utf-8", "replace")) + 2) // 3


def estimate_message(m: Message) -> int:
    """Estimated tokens of one message as sent (content, attached files, tool calls; never its reasoning)."""
    if m.attachments and m.role != "tool":  # a tool result's images are the user's, not sent
        return MESSAGE_OVERHEAD + estimate_text(text_for_model(m)) + IMAGE_TOKENS * len(images_of(m))
    if not m.tool_calls:
        return MESSAGE_OVERHEAD + estimate_text(m.content)
    cached = _CALLS_CACHE.get(id(m))
    calls = m.tool_calls
    if cached is not None and cached[0]() is m and cached[1] is calls and cached[2] == len(calls):
        return MESSAGE_OVERHEAD + estimate_text(m.content) + cached[3]
    n = sum(MESSAGE_OVERHEAD + estimate_text(c.name) + estimate_text(c.arguments_json()) for c in calls)
    if len(_CALLS_CACHE) > 4096:
        _CALLS_CACHE.clear()
    _CALLS_CACHE[id(m)] = (weakref.ref(m), calls, len(calls), n)
    return MESSAGE_OVERHEAD + estimate_text(m.content) + n


#: id(message) → (the message, weakly; its tool calls, their number and estimate): a request is planned again
#: at every step of a turn, and the calls' arguments as JSON are the costly part of an estimate
_CALLS_CACHE: dict[int, tuple[weakref.ref[Message], list[Any], int, int]] = {}


def estimate_messages(messages: Sequence[Message]) -> int:
    return sum(estimate_message(m) for m in messages)


_TOOLS_CACHE: dict[int, tuple[Any, int]] = {}


def estimate_tools(tools: list[dict[str, Any]] | None) -> int:
    """Estimated tokens of the tool schemas of a request (cached for the same list object)."""
    if not tools:
        return 0
    cached = _TOOLS_CACHE.get(id(tools))
    if cached is not None and cached[0] is tools:
        return cached[1]
    n = estimate_text(json.dumps(tools, ensure_ascii=False, separators=(",", ":")))
    if len(_TOOLS_CACHE) > 64:
        _TOOLS_CACHE.clear()
    _TOOLS_CACHE[id(tools)] = (tools, n)
    return n


Key = tuple[str, str, str]


class Calibration:
    """Per (backend, URL, model): the learned ratio of reported to estimated prompt tokens, the prompt
    size a server refused as too long, and the window a refusal named. Thread-safe."""

    def __init__(self) -> None:
        self._ratio: dict[Key, float] = {}
        self._limit: dict[Key, int] = {}
        self._window: dict[Key, int] = {}
        #: the server's count of the request it refused last, until :meth:`refused` says our estimate of it
        self._counted: dict[Key, int] = {}
        self._lock = threading.Lock()

    def ratio(self, key: Key) -> float:
        with self._lock:
            return self._ratio.get(key, 1.0)

    def scale(self, key: Key, raw: int) -> int:
        """``raw`` (an uncalibrated estimate) as this model's servers count it."""
        return int(raw * self.ratio(key) + 0.5)

    def observe(self, key: Key, raw_estimate: int, reported: int) -> bool:
        """Learn from one request: ``raw_estimate`` (ours, uncalibrated) against ``reported`` (the server's
        prompt tokens). Returns True when the sample was learned."""
        if raw_estimate < 32 or reported <= 0:
            return False  # too small to say anything
        r = reported / raw_estimate
        if not (LEARN_RANGE[0] <= r <= LEARN_RANGE[1]):
            return False
        with self._lock:
            old = self._ratio.get(key)
            self._ratio[key] = r if old is None else old + _WEIGHT * (r - old)
        return True

    def limit(self, key: Key) -> int | None:
        """The prompt tokens (calibrated) this model's server refused as too long, if it did — or, when its refusal
        named a smaller window, that window: the request asked again at once stays below it."""
        with self._lock:
            refused, window = self._limit.get(key), self._window.get(key)
        if refused is None or window is None:
            return refused
        return min(refused, window)

    def learn_window(self, key: Key, window: int | None, counted: int | None = None) -> None:
        """A refusal said this model's window is ``window`` tokens (None: it did not say) and that the request had
        ``counted`` tokens (None: not said; :meth:`refused` learns from it)."""
        with self._lock:
            if window:
                self._window[key] = window
            if counted:
                self._counted[key] = counted
            else:
                self._counted.pop(key, None)

    def window(self, key: Key) -> int | None:
        """The window this model's server named when it refused a request, if it did."""
        with self._lock:
            return self._window.get(key)

    def refused(self, key: Key, tokens: int) -> None:
        """A request of about ``tokens`` (calibrated) was refused as too long for the context window. When the
        refusal said the server's count of it (:meth:`learn_window`), the ratio is learned from the two, and the
        limit is the server's count."""
        with self._lock:
            counted = self._counted.pop(key, None)
        if counted and self.observe(key, int(tokens / self.ratio(key)), counted):
            tokens = counted
        with self._lock:
            old = self._limit.get(key)
            self._limit[key] = tokens if old is None else min(old, tokens)

    def clear(self) -> None:
        with self._lock:
            self._ratio.clear()
            self._limit.clear()
            self._window.clear()
            self._counted.clear()
