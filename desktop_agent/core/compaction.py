"""Compaction: the model writes a summary of a chat's earlier messages, which is sent instead of them.

The summary is a message of its own (``role="system"``, ``kind="summary"``, ``covers=N``: it stands for the
chat's first N messages), appended to the chat and saved like any other; the messages it stands for stay in
the chat and the store — shown, searchable, exported — but :mod:`~desktop_agent.core.context` no longer sends
them. :func:`undo` removes the summary, and they are sent again.

What is summarised: everything but the newest messages (the last turns, up to a quarter of the window and a third of
the messages since the last summary), at a
boundary that never parts a tool call from its results. When the part to summarise is larger than one request
can hold, it is summarised piece by piece, each piece together with the summary so far (:func:`summarising`
reports each piece, so the surfaces show "3/25" and Stop ends it between and during pieces).

Automatic compaction (before a turn) makes at most one request (``max_requests=1``): it summarises the newest
piece of the part to summarise, and the older pieces are left out — not sent, not summarised; the summary says
so by its status (``status="interrupted"``: it stops short of the oldest messages it stands for, see
:func:`is_partial`). Summarising explicitly (Summarise, ``/compact``) reads them all: after a partial summary it
starts again from the last complete one (or the start of the chat).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desktop_agent.core.context import budget_for, message_units
from desktop_agent.core.errors import AgentError, EmptyAnswer
from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.tokens import estimate_message, estimate_text

if TYPE_CHECKING:
    from desktop_agent.core.store import ConversationStore

#: what the model is asked to do
INSTRUCTIONS = (
    "You summarise conversations for your own later use. Write a short summary of the conversation below: the "
    "facts, names, numbers, decisions and open questions that later answers may need. Plain sentences, no "
    "preamble, at most {words} words."
)
#: characters of one message kept in the transcript a summary is written from
MESSAGE_CHARS = 2000
#: the fewest messages worth summarising
MIN_MESSAGES = 4
#: a summary longer than this many characters per word asked for is cut off (small models ramble)
MAX_CHARS_PER_WORD = 8


class NothingToCompact(AgentError):
    """The chat is too short to summarise."""

    retryable = False

    def __init__(self) -> None:
        super().__init__("There is nothing earlier to summarise in this chat yet.",
                         "Summarising helps once a chat is long.", "")


def active_summary(messages: Sequence[Message]) -> Message | None:
    """The newest summary of the chat (the one the history is sent from), if any."""
    return next((m for m in reversed(messages) if m.kind == "summary"), None)


def is_partial(summary: Message) -> bool:
    """Whether ``summary`` leaves out the oldest messages it stands for (an automatic one-request summary)."""
    return summary.status != "complete"


@dataclass(frozen=True)
class Progress:
    """A summary request about to be made: piece ``piece`` of ``pieces``; ``left_out``: messages of the part
    to summarise that this summary leaves out (the oldest; only with ``max_requests``)."""

    piece: int
    pieces: int
    left_out: int = 0


def _boundary(messages: Sequence[Message], keep_tokens: int) -> int:
    """How many leading messages to summarise: all but the newest units worth ``keep_tokens`` (at least the
    last unit), cut between units only."""
    start = 0
    summary = active_summary(messages)
    if summary is not None:
        start = summary.covers or 0
    # units with their start positions
    positions: list[tuple[int, int]] = []  # (start index, tokens)
    i = start
    n = len(messages)
    while i < n:
        j = i + 1
        if messages[i].role == "assistant" and messages[i].tool_calls:
            while j < n and messages[j].role == "tool":
                j += 1
        positions.append((i, sum(estimate_message(m) for m in messages[i:j])))
        i = j
    keep_tokens = min(keep_tokens, sum(t for _, t in positions) // 3)  # a long window: still summarise most
    kept = 0
    cut = n
    for index, tokens in reversed(positions):
        if cut != n and kept + tokens > keep_tokens:
            break
        kept += tokens
        cut = index
    return cut


def _line(m: Message) -> str:
    if m.role == "tool":
        who = f"Tool result ({m.tool_name or 'tool'})"
    elif m.role == "system":
        who = "Earlier summary"
    else:
        who = "User" if m.role == "user" else "Assistant"
    text = m.content.strip()
    if m.role == "assistant" and m.tool_calls:
        text = (text + " " if text else "") + "; ".join(f"[calls {c.name}({c.arguments_json()})]"
                                                        for c in m.tool_calls)
    if len(text) > MESSAGE_CHARS:
        text = text[:MESSAGE_CHARS] + " […]"
    return f"{who}: {text}"


def _pieces(lines: list[str], budget: int) -> list[list[str]]:
    """``lines`` in pieces of at most ``budget`` estimated tokens (a longer line is a piece of its own)."""
    out: list[list[str]] = [[]]
    used = 0
    for line in lines:
        cost = estimate_text(line) + 1
        if out[-1] and used + cost > budget:
            out.append([])
            used = 0
        out[-1].append(line)
        used += cost
    return [p for p in out if p]


class _either(threading.Event):  # noqa: N801 - used like a function
    """An event that is set when ``first`` (if any) or ``second`` is."""

    def __init__(self, first: threading.Event | None, second: threading.Event):
        super().__init__()
        self._first, self._second = first, second

    def is_set(self) -> bool:
        return self._second.is_set() or (self._first is not None and self._first.is_set())

    def wait(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            left = 0.05 if deadline is None else min(0.05, deadline - time.monotonic())
            if left <= 0:
                return False
            self._second.wait(left)
        return True


_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)


def _ask(backend: Any, transcript: str, words: int, cancel: threading.Event | None) -> str:
    request = [Message(role="system", content=INSTRUCTIONS.format(words=words)),
               Message(role="user", content=f"The conversation:\n\n{transcript}\n\nThe summary:")]
    parts: list[str] = []
    enough = threading.Event()  # a model that goes on past the length asked for is cut off there
    stop = _either(cancel, enough)
    limited = hasattr(backend, "max_answer_tokens")
    limit = getattr(backend, "max_answer_tokens", None)
    if limited:  # the server stops there too (some go on generating after the client left)
        backend.max_answer_tokens = words * 2
    stream = backend.stream_chat(request, tools=None, tool_choice="auto", cancel=stop)
    size = 0
    try:
        for chunk in stream:
            if cancel is not None and cancel.is_set():
                break
            parts.append(chunk.text)
            size += len(chunk.text)
            if size > words * MAX_CHARS_PER_WORD:
                enough.set()
                break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
        if limited:
            backend.max_answer_tokens = limit
    text = _THINK.sub("", "".join(parts)).strip()
    if not text and not (cancel is not None and cancel.is_set()):
        raise EmptyAnswer()
    return text


def summarising(conversation: Conversation, backend: Any, window: int | None,
                cancel: threading.Event | None = None, *,
                max_requests: int | None = None) -> Generator[Progress, None, Message | None]:
    """:func:`summarise`, yielding a :class:`Progress` before each request; returns the summary (None: stopped).
    ``max_requests``: at most this many requests — the newest pieces; the older ones are left out and the summary
    is partial (:func:`is_partial`). Raises like :func:`summarise`."""
    window = window or 8192
    messages = conversation.messages
    cut = _boundary(messages, keep_tokens=window // 4)
    if max_requests is None:  # a full summary: from the last complete one
        previous = next((m for m in reversed(messages) if m.kind == "summary" and not is_partial(m)
                         and (m.covers or 0) <= cut), None)
    else:
        previous = active_summary(messages[:cut]) or active_summary(messages)
    start = previous.covers or 0 if previous is not None else 0
    covered = [m for m in messages[start:cut] if m.kind == "message"]  # (a note about the chat is no message)
    chat = [m for unit in message_units(covered) for m in unit]
    if (len(chat) < MIN_MESSAGES and previous is None) or not chat:
        raise NothingToCompact()
    words = max(60, min(300, window // 16))
    piece_budget = max(200, budget_for(window) - estimate_text(INSTRUCTIONS) - words * 2 - 200)
    pieces = _pieces([_line(m) for m in chat], piece_budget)
    left_out = 0
    if max_requests is not None and len(pieces) > max_requests:
        dropped, pieces = pieces[:-max_requests], pieces[-max_requests:]
        left_out = sum(len(p) for p in dropped)  # (one line a message)
    summary = previous.content if previous is not None else ""
    for n, piece in enumerate(pieces, 1):
        yield Progress(n, len(pieces), left_out)
        transcript = "\n".join(([f"Earlier summary: {summary}"] if summary else []) + piece)
        summary = _ask(backend, transcript, words, cancel)
        if cancel is not None and cancel.is_set():
            return None
    partial = bool(left_out) or (previous is not None and is_partial(previous))
    return Message(role="system", kind="summary", covers=cut, content=summary,
                   status="interrupted" if partial else "complete",
                   model=getattr(backend, "model", None), backend=getattr(backend, "name", None))


def summarise(conversation: Conversation, backend: Any, window: int | None,
              cancel: threading.Event | None = None, *, max_requests: int | None = None) -> Message | None:
    """The model's summary of the chat's earlier messages, as a new ``kind="summary"`` message (not yet added
    to the chat), or None when stopped. Raises :class:`NothingToCompact` or the backend's
    :class:`~desktop_agent.core.errors.AgentError`. See :func:`summarising`."""
    steps = summarising(conversation, backend, window, cancel, max_requests=max_requests)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def outgrown(conversation: Conversation, window: int | None, fixed_tokens: int = 0) -> bool:
    """Whether the history sent from now on (since the active summary) no longer fits ``window``."""
    if not window:
        return False
    budget = budget_for(window) - fixed_tokens
    summary = active_summary(conversation.messages)
    start = summary.covers or 0 if summary is not None else 0
    used = estimate_text(summary.content) if summary is not None else 0
    for m in reversed(conversation.messages[start:]):  # stops as soon as it is known
        if m.kind == "summary":
            continue
        used += estimate_message(m)
        if used > budget:
            return True
    return False


def apply(conversation: Conversation, summary: Message, store: ConversationStore | None) -> None:
    """Add ``summary`` to the chat (and save it)."""
    conversation.messages.append(summary)
    if store is not None:
        store.add_message(conversation, summary)


def undo(conversation: Conversation, summary: Message, store: ConversationStore | None) -> None:
    """Remove ``summary`` from the chat (and the store): the messages it stood for are sent again. A later
    summary that counted it among the messages it covers counts one fewer."""
    index = next((i for i, m in enumerate(conversation.messages) if m is summary or
                  (summary.id is not None and m.id == summary.id)), None)
    if index is None:
        return
    removed = conversation.messages.pop(index)
    if store is not None:
        store.delete_message(removed)
    for m in conversation.messages[index:]:
        if m.kind == "summary" and m.covers is not None and m.covers > index:
            m.covers -= 1
            if store is not None and m.id is not None:
                store.update_message(m)
