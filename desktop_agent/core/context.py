"""Which history goes to the model: the system prompt, the tool schemas and as much of the conversation as fits
the model's context window — chosen by a token budget (and, when set, a message count).

Seed 000 keeps a bounded memory (a deque of 50 messages) and sends its system prompt first on every
request. :func:`build_request` does the same on our :class:`~desktop_agent.core.messages.Message`
history, with the rules chat-completion servers enforce for tool calls (several calls in one step, each answered):

- an assistant message with ``tool_calls`` is always followed directly by one ``role="tool"`` message
  per call id. The window never cuts such a group apart; a call with no stored result (a crash or a
  Stop while tools ran) gets a synthetic "was not run" result; tool results that answer no call in
  the preceding assistant message (orphans) are left out;
- the window never starts with tool results;
- the system prompt is always first and does not count toward ``max_history``;
- the latest user message is always included, even when the tool steps of a long turn alone fill the
  window (the model must still see the question). Together with whole tool groups, this means the
  window may exceed ``max_history`` by the last user message and by one oversized group;
- reasoning (``Message.thinking``) and uncapped tool output (``full_content``) are never sent
  (thinking is not replayed; only the capped result of a tool goes to the model);
- assistant messages with neither content nor tool calls are skipped (some servers reject them).

Choosing by tokens (:func:`choose`, estimates from :mod:`~desktop_agent.core.tokens`): the system prompt, the
tool schemas and the newest unit (the new turn's question at least) always go; older units are added newest
first while they fit. Before any message is left out, the results of tool calls of earlier turns are trimmed to
their first lines (the full result stays in the chat); then, newest first, trimmed results get their full text
back while it fits. A summary of earlier messages (``Message.kind == "summary"``, see
:mod:`~desktop_agent.core.compaction`) replaces the first ``covers`` messages of the chat: it is added to the
system prompt and those messages are not sent. The walk goes from the newest message back and stops when the
budget is full, so its cost does not grow with the length of the chat. When even the newest messages do not fit
because of a tool result too big for the window (a whole file, a long page), the longest results are cut to fit,
each saying so at its end, so the turn goes on instead of being refused.

The conversation itself is never modified (nothing is deleted from the history).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop_agent.core.messages import Message
from desktop_agent.core.tokens import estimate_message, estimate_text, estimate_tools

#: Content of the synthetic result for a stored tool call that has no result.
NOT_RUN_TEXT = "Error: this tool call was not run (the turn was interrupted before it ran)."
#: characters of an earlier turn's tool result kept when it is trimmed to fit the window
TRIMMED_KEEP = 300
#: the end of a tool result cut to fit the window (the model reads it: it may ask for less)
CUT_NOTE = ("\n[... {cut} more characters cut: the result is too big for the model's context window. Ask for a "
            "smaller part if it is needed.]")
#: characters a result cut to fit keeps at least
CUT_KEEP = 200
#: how the summary of earlier messages is introduced in the system prompt
SUMMARY_HEADING = "Summary of the earlier part of this conversation (those messages are not shown):"


def message_units(messages: Sequence[Message]) -> list[list[Message]]:
    """Split history into units that must stay together: a single user/assistant message, or an
    assistant tool-call message followed by exactly one result per call (in call order)."""
    units: list[list[Message]] = []
    i, n = 0, len(messages)
    while i < n:
        m = messages[i]
        if m.role == "system":  # a summary is not a message of the history (see choose)
            i += 1
            continue
        if m.role == "tool":  # orphan: no assistant tool-call message right before it
            i += 1
            continue
        if m.role == "assistant" and m.tool_calls:
            results: dict[str, Message] = {}
            j = i + 1
            while j < n and messages[j].role == "tool":
                r = messages[j]
                if r.tool_call_id is not None and r.tool_call_id not in results:
                    results[r.tool_call_id] = r
                j += 1
            unit = [m]
            for call in m.tool_calls:
                result = results.get(call.id)
                if result is None:
                    result = Message(
                        role="tool",
                        content=NOT_RUN_TEXT,
                        tool_call_id=call.id,
                        tool_name=call.name,
                        tool_status="cancelled",
                    )
                unit.append(result)
            units.append(unit)
            i = j
            continue
        if m.role == "assistant" and not m.content.strip():
            i += 1  # nothing to say (e.g. an empty stopped answer)
            continue
        units.append([m])
        i += 1
    return units


def _for_request(m: Message) -> Message:
    """A copy safe to send: no reasoning, no uncapped tool output."""
    if m.thinking or m.full_content is not None:
        return m.model_copy(update={"thinking": "", "full_content": None})
    return m


def _trimmed(m: Message) -> Message:
    """A tool result cut to its first :data:`TRIMMED_KEEP` characters, saying so."""
    if m.role != "tool" or len(m.content) <= TRIMMED_KEEP + 80:
        return m
    cut = len(m.content) - TRIMMED_KEEP
    return m.model_copy(update={
        "content": m.content[:TRIMMED_KEEP] + f"\n[… {cut} more characters trimmed to fit the context window]",
        "thinking": "", "full_content": None})


def answer_reserve(window: int) -> int:
    """Tokens of a window kept free for the answer."""
    return max(64, min(1024, window // 4))


def budget_for(window: int) -> int:
    """The prompt tokens a request may use in a ``window``-token context."""
    return max(1, window - answer_reserve(window))


@dataclass
class _Unit:
    messages: list[Message]
    full: int
    trimmed_messages: list[Message] | None = None
    trimmed: int = 0
    use_trimmed: bool = False

    @property
    def cost(self) -> int:
        return self.trimmed if self.use_trimmed else self.full

    def sent(self) -> list[Message]:
        chosen = self.trimmed_messages if self.use_trimmed and self.trimmed_messages else self.messages
        return [_for_request(m) for m in chosen]


def _unit(messages: list[Message], trimmable: bool) -> _Unit:
    full = 0
    for m in messages:
        full += estimate_message(m)
    unit = _Unit(messages, full, trimmed=full)
    if trimmable and len(messages) > 1 and any(m.role == "tool" for m in messages):
        cut = [_trimmed(m) for m in messages]
        if any(a is not b for a, b in zip(cut, messages, strict=True)):
            unit.trimmed_messages = cut
            unit.trimmed = sum(estimate_message(m) for m in cut)
    return unit


@dataclass
class Selection:
    """What :func:`choose` picked. ``messages``: the history to send (no system prompt), oldest first.
    ``summary``: the summary of earlier messages sent with the system prompt, if any. ``tokens``: estimated
    prompt tokens of the whole request (system prompt, summary, tools, history; not calibrated). ``left_out``:
    history messages not sent (not counting those a summary stands for); ``trimmed``: tool results sent
    trimmed. ``fits``: False when even the system prompt, the tools and the newest messages exceed the budget."""

    messages: list[Message] = field(default_factory=list)
    summary: Message | None = None
    tokens: int = 0
    left_out: int = 0
    trimmed: int = 0
    fits: bool = True
    #: the whole history of this many messages in its usual shape, the last being ``last``, with ``fixed_tokens``
    #: taken first (0: another kind of selection): a later request of the same history grown by whole units
    #: (the next step of a tool turn) extends it instead of reading the history again (see :func:`choose`)
    whole_of: int = field(default=0, compare=False)
    last: Message | None = field(default=None, compare=False, repr=False)
    fixed_tokens: int = field(default=0, compare=False)


def _units_from_end(messages: Sequence[Message], i: int, stop: int) -> tuple[int, list[list[Message]], Message | None]:
    """The units ending at ``messages[i - 1]``: (start index, units oldest first, a system message met)."""
    j = i - 1
    m = messages[j]
    if m.role == "system":
        return j, [], m
    if m.role == "tool":
        k = j
        while k > stop and messages[k - 1].role == "tool":
            k -= 1
        if k > stop and messages[k - 1].role == "assistant" and messages[k - 1].tool_calls:
            return k - 1, message_units(messages[k - 1:i]), None
        return k, [], None  # results that answer no call: left out
    if m.role == "user" or (not m.tool_calls and m.content.strip()):  # a message of its own (as message_units makes it)
        return j, [[m]], None
    return j, message_units([m]), None


#: a history this short is first tried whole (the common case: a short chat, and every step of a tool turn)
WHOLE_TRY = 64


def _whole(messages: Sequence[Message], budget: int | None, fixed_tokens: int,
           count_limit: int | None, after: Selection | None = None) -> Selection | None:
    """The selection of :func:`choose` when the whole history fits (every unit, nothing trimmed, no summary), in
    one forward pass; None when it does not fit or holds a summary (then the walk from the end decides).

    A history in its usual shape (each call's result right after its call, in call order; no orphan result, no
    empty answer) is its own list of units: it is taken as it is, without building the units — and when
    ``after`` is such a selection of the first messages of this history, only the messages added since are read."""
    used = fixed_tokens
    out: list[Message] = []
    begin = 0
    if (after is not None and after.whole_of and after.fixed_tokens == fixed_tokens
            and after.whole_of <= len(messages) and messages[after.whole_of - 1] is after.last):
        used, out, begin = after.tokens, list(after.messages), after.whole_of
    expected: list[str] = []  # the ids of the calls whose results come next, reversed
    for i in range(begin, len(messages)):
        m = messages[i]
        role = m.role
        if expected:
            if role != "tool" or m.tool_call_id != expected[-1]:
                return _whole_grouped(messages, budget, fixed_tokens, count_limit)
            expected.pop()
        elif role == "assistant":
            if m.tool_calls:
                expected = [c.id for c in reversed(m.tool_calls)]
                if len(set(expected)) != len(expected):
                    return _whole_grouped(messages, budget, fixed_tokens, count_limit)
            elif not m.content.strip():
                return _whole_grouped(messages, budget, fixed_tokens, count_limit)
        elif role != "user":  # a summary, or a result that answers no call
            return _whole_grouped(messages, budget, fixed_tokens, count_limit)
        used += estimate_message(m)
        out.append(_for_request(m))
    if expected:  # calls without results: the units add them
        return _whole_grouped(messages, budget, fixed_tokens, count_limit)
    if (budget is not None and used > budget) or (count_limit is not None and len(out) > count_limit):
        return None
    return Selection(out, None, used, 0, 0, True, whole_of=len(messages), last=messages[-1] if messages else None,
                     fixed_tokens=fixed_tokens)


def _whole_grouped(messages: Sequence[Message], budget: int | None, fixed_tokens: int,
                   count_limit: int | None) -> Selection | None:
    """:func:`_whole` for any history: unit by unit (see :func:`message_units`)."""
    used = fixed_tokens
    count = 0
    out: list[Message] = []
    for m in messages:
        if m.role == "system":
            return None
    for unit in message_units(messages):
        for m in unit:
            used += estimate_message(m)
            out.append(_for_request(m))
        count += len(unit)
        if (budget is not None and used > budget) or (count_limit is not None and count > count_limit):
            return None
    return Selection(out, None, used, 0, 0, True)


def choose(messages: Sequence[Message], *, budget: int | None, fixed_tokens: int = 0,
           max_history: int | None = None, after: Selection | None = None) -> Selection:
    """The history to send for a prompt of at most ``budget`` tokens (None: no token limit), of which
    ``fixed_tokens`` (system prompt, tool schemas) are taken already; at most ``max_history`` messages
    (None or ``<= 0``: no count limit). See the module docstring for the rules. ``after``: the selection of an
    earlier request of this history (the previous step of the turn), whose work is reused when it can be."""
    count_limit = max_history if max_history and max_history > 0 else None
    if len(messages) <= WHOLE_TRY:
        whole = _whole(messages, budget, fixed_tokens, count_limit, after)
        if whole is not None:
            return whole
    chosen: list[_Unit] = []  # newest first
    used = fixed_tokens
    count = 0
    summary: Message | None = None
    stop = 0
    i = len(messages)
    have_user = False
    last_user: _Unit | None = None
    full = False  # the budget or the count is used up: only the latest user message is still looked for
    left_out = 0
    while i > stop:
        start, units, system = _units_from_end(messages, i, stop)
        i = start
        if system is not None:
            if system.kind == "summary" and summary is None and not full:
                summary = system
                stop = max(stop, min(system.covers or 0, start))
                used += estimate_text(system.content) + estimate_text(SUMMARY_HEADING)
            continue
        for unit_messages in reversed(units):
            is_user = unit_messages[0].role == "user"
            if full:
                left_out += len(unit_messages)
                if is_user and not have_user:
                    have_user = True
                    last_user = _unit(unit_messages, False)
                continue
            unit = _unit(unit_messages, trimmable=have_user)
            over_count = count_limit is not None and count + len(unit_messages) > count_limit
            over_budget = budget is not None and used + unit.trimmed > budget
            full = bool(chosen) and (over_count or over_budget)
            if full:
                left_out += len(unit_messages)
                if is_user and not have_user:
                    have_user = True
                    last_user = unit
                continue
            if budget is not None and used + unit.full > budget and unit.trimmed_messages is not None:
                unit.use_trimmed = True
            chosen.append(unit)
            used += unit.cost
            count += len(unit_messages)
            have_user = have_user or is_user
        if full and have_user:
            break
    left_out += i - stop  # (never walked: counted, not looked at)
    if budget is not None:
        # a summary found late may not fit with everything chosen before it: the oldest units go first
        while used > budget and len(chosen) > 1:
            dropped = chosen.pop()
            used -= dropped.cost
            left_out += len(dropped.messages)
        # trimmed results get their full text back, newest first, while it fits
        for unit in chosen:
            if unit.use_trimmed and used - unit.trimmed + unit.full <= budget:
                unit.use_trimmed = False
                used += unit.full - unit.trimmed
    if last_user is not None:
        chosen.append(last_user)
        used += last_user.cost
        left_out -= len(last_user.messages)
    cut = 0
    if budget is not None and used > budget:
        saved, cut = _cut_to_fit(chosen, used - budget)
        used -= saved
    chosen.reverse()
    out = [m for unit in chosen for m in unit.sent()]
    trimmed = sum(1 for unit in chosen if unit.use_trimmed for m in unit.messages if m.role == "tool") + cut
    return Selection(out, summary, used, max(0, left_out), trimmed, budget is None or used <= budget)


def _cut(m: Message, tokens: int) -> Message:
    """Tool result ``m`` cut to about ``tokens`` estimated tokens (at least :data:`CUT_KEEP` characters), saying so."""
    text = m.content
    target = max(0, tokens)
    keep = len(text)
    out = m
    for _ in range(3):  # the estimate is per script (a cut may change it): a few passes get within it
        keep = max(CUT_KEEP, int(keep * target / max(1, estimate_message(out))))
        if keep >= len(text):
            return m
        out = m.model_copy(update={"content": text[:keep] + CUT_NOTE.format(cut=len(text) - keep),
                                   "thinking": "", "full_content": None})
        if estimate_message(out) <= target or keep == CUT_KEEP:
            break
    return out


def _cut_to_fit(units: list[_Unit], over: int) -> tuple[int, int]:
    """Cut the longest tool results of ``units`` (as they would be sent) until ``over`` estimated tokens are saved,
    or nothing more can be cut: (tokens saved, results cut)."""
    saved = cut = 0
    done: set[tuple[int, int]] = set()  # (unit, index) of the results cut already
    while saved < over:
        best: tuple[_Unit, int, int] | None = None  # (unit, index, tokens) of the longest result left
        for unit in units:
            sent = unit.trimmed_messages if unit.use_trimmed and unit.trimmed_messages else unit.messages
            for i, m in enumerate(sent):
                if m.role == "tool" and (id(unit), i) not in done and len(m.content) > CUT_KEEP + len(CUT_NOTE) and (
                        best is None or estimate_message(m) > best[2]):
                    best = (unit, i, estimate_message(m))
        if best is None:
            break
        unit, i, tokens = best
        done.add((id(unit), i))
        sent = list(unit.trimmed_messages if unit.use_trimmed and unit.trimmed_messages else unit.messages)
        shorter = _cut(sent[i], tokens - (over - saved))
        less = tokens - estimate_message(shorter)
        if less <= 0:
            break
        sent[i] = shorter
        if unit.use_trimmed and unit.trimmed_messages:
            unit.trimmed_messages, unit.trimmed = sent, unit.trimmed - less
        else:
            unit.messages, unit.full = sent, unit.full - less
        saved += less
        cut += 1
    return saved, cut


def select_history(messages: Sequence[Message], max_history: int | None = 50, budget: int | None = None,
                   fixed_tokens: int = 0) -> list[Message]:
    """The window of ``messages`` to send (without the system prompt), newest last.

    ``max_history``: how many history messages to send (``None`` or ``<= 0``: all). Whole units are
    taken from the end while they fit; the newest unit is always taken, and the latest user message
    is put first when the window would not otherwise contain it. ``budget``: see :func:`choose`. Returns
    copies without ``thinking`` and ``full_content``; ``messages`` is not modified.
    """
    return choose(messages, budget=budget, fixed_tokens=fixed_tokens, max_history=max_history).messages


def system_text(system_prompt: str | None, summary: Message | None) -> str:
    """The system message of a request: the prompt, then the summary of earlier messages (if any)."""
    prompt = system_prompt.strip() if system_prompt and system_prompt.strip() else ""
    if summary is None or not summary.content.strip():
        return system_prompt if prompt and system_prompt else ""
    block = f"{SUMMARY_HEADING}\n{summary.content.strip()}"
    return f"{system_prompt}\n\n{block}" if prompt else block


def request_for(selection: Selection, system_prompt: str | None) -> list[Message]:
    """The message list of one model call for a :class:`Selection`."""
    out: list[Message] = []
    text = system_text(system_prompt, selection.summary)
    if text:
        out.append(Message(role="system", content=text))
    out.extend(selection.messages)
    return out


def plan_request(messages: Sequence[Message], system_prompt: str | None, *, budget: int | None,
                 tools: list[dict[str, Any]] | None = None, max_history: int | None = None,
                 after: Selection | None = None) -> Selection:
    """:func:`choose` for a request with ``system_prompt`` and ``tools``: their tokens are counted first."""
    fixed = estimate_text(system_prompt or "") + (4 if system_prompt else 0) + estimate_tools(tools)
    return choose(messages, budget=budget, fixed_tokens=fixed, max_history=max_history, after=after)


def build_request(
    messages: Sequence[Message], system_prompt: str | None, max_history: int | None = 50,
    *, budget: int | None = None, tools: list[dict[str, Any]] | None = None,
) -> list[Message]:
    """The message list for one model call: ``[system prompt (+ summary)] + the chosen history``.

    ``system_prompt`` empty or ``None`` → no system message is sent (unless there is a summary).
    """
    selection = plan_request(messages, system_prompt, budget=budget, tools=tools, max_history=max_history)
    return request_for(selection, system_prompt)
