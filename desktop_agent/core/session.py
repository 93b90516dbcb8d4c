"""ChatSession: one conversation, its store and the agent that answers in it — the unit both the window's
runner and the terminal chat drive.

A session runs a turn as an iterator of events (the agent's, plus :class:`~desktop_agent.core.events.ChatUpdated`
after the user's message, so surfaces learn the chat's title and model from events instead of reading a
shared object). It saves each finished message as the agent reports it (before the next model call), and
marks a partial answer cut short by quitting the app as ``interrupted`` rather than ``stopped``.

It also keeps how the chat's last turn failed (``Conversation.last_failure``, saved with
:meth:`~desktop_agent.core.store.ConversationStore.set_failure`), so a chat opened again shows that failure
and can be retried: recorded when a turn fails, forgotten when a turn adds the user's message, answers or is
stopped. A retry that is cut short by a crash leaves it in place.

A long chat can be compacted (:meth:`ChatSession.compact`; automatically before a turn when the chat outgrew the
model's window and the agent's ``auto_compact`` is on): the model summarises its earlier messages, which stay in
the chat but are sent as that summary (:mod:`~desktop_agent.core.compaction`); :meth:`ChatSession.undo_compaction`
takes it back.

Tool permissions: a session keeps the chat's :class:`~desktop_agent.core.tools.permissions.ChatPermissions`
(:attr:`ChatSession.permissions`: the grants "for this chat", which last as long as the session, and the asker
of the surface showing it), and audits every tool call of its turns in the store (``tool_calls``: time, tool,
arguments, decision and who made it, duration, status — from the ``ToolCallStarted`` / ``ToolCallFinished``
events, so also the calls that never reached the check).

A chat may override a few settings for itself (``Conversation.options``: tools, temperature, think, JSON
format, backend and model, system prompt); :meth:`ChatSession.effective` gives the settings its turns use — a chat
saved before it had options of its own keeps the backend and model that answered in it. A change of its model or
system prompt is recorded in the chat as a note (:meth:`ChatSession.note`: a ``kind="note"`` message, shown and
kept, never sent).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from desktop_agent.core import compaction
from desktop_agent.core.errors import AgentError, StoreError, UnexpectedError
from desktop_agent.core.events import (
    AnswerFinished,
    ChatCompacted,
    ChatUpdated,
    CompactionUndone,
    ContextUsage,
    Event,
    MessageAdded,
    Notice,
    ToolCallFinished,
    ToolCallStarted,
    TurnCancelled,
    TurnFailed,
)
from desktop_agent.core.messages import Attachment, Conversation, Message, TurnFailure, text_for_model
from desktop_agent.core.model_info import window_info
from desktop_agent.core.settings import Settings, chat_options
from desktop_agent.core.tokens import estimate_text, estimate_tools
from desktop_agent.core.tools.permissions import Asker, ChatPermissions

if TYPE_CHECKING:
    from desktop_agent.core.agent import Agent
    from desktop_agent.core.store import ConversationStore

log = logging.getLogger(__name__)

#: the notices of a compaction
OUTGREW = "The chat outgrew the model's context window: summarising earlier messages…"
SUMMARISING = "Summarising earlier messages…"
PIECE = "Summarising earlier messages ({piece}/{pieces})…"
LEFT_OUT = ("The {n} oldest message{s} do not fit in one summary request and are left out; Summarise earlier "
            "messages (/compact in the terminal) summarises the whole chat.")


class ChatSession:
    """``conversation`` + ``store`` (None: nothing is saved) + ``agent`` (replaceable between turns, when the
    settings that built it changed). ``interrupting``: set when the app is quitting; a partial answer saved
    from then on is ``interrupted``."""

    def __init__(self, conversation: Conversation, store: ConversationStore | None = None,
                 agent: Agent | None = None, *, interrupting: threading.Event | None = None):
        self.conversation = conversation
        self.store = store
        self.interrupting = interrupting if interrupting is not None else threading.Event()
        #: this chat's tool grants and the asker of the surface showing it
        self.permissions = ChatPermissions(conversation.id)
        self._started: dict[str, tuple[float, str, dict]] = {}  # call id → (time, tool, arguments)
        self._agent: Agent | None = None
        if agent is not None:
            self.agent = agent

    @property
    def id(self) -> str:
        return self.conversation.id

    @property
    def agent(self) -> Agent:
        if self._agent is None:
            raise RuntimeError("this chat session has no agent yet")
        return self._agent

    @agent.setter
    def agent(self, agent: Agent) -> None:
        agent.on_message = self.save_message
        agent.permissions = self.permissions
        self._agent = agent

    @property
    def asker(self) -> Asker | None:
        """Who is asked about a call that needs the user's approval (None: such calls are denied)."""
        return self.permissions.asker

    @asker.setter
    def asker(self, asker: Asker | None) -> None:
        self.permissions.asker = asker

    def _audit(self, event: Event) -> None:
        """Record a finished tool call in the store's audit. A store that can't is logged; the turn goes on."""
        if isinstance(event, ToolCallStarted):
            self._started[event.call_id] = (time.time(), event.name, dict(event.arguments))
            return
        if not isinstance(event, ToolCallFinished) or self.store is None:
            return
        from desktop_agent.core.store.toolcalls import AuditedCall, ToolAudit

        started, name, arguments = self._started.pop(event.call_id, (time.time(), event.name, {}))
        d = event.decision
        call = AuditedCall(event.call_id, name, arguments, d.decision if d else None, d.by if d else None,
                           d.rule_id if d else None, d.reason if d else None, event.status, event.duration_ms,
                           started)
        try:
            ToolAudit(self.store).record(self.conversation.id, call)
        except Exception:
            log.warning("could not audit tool call %s in chat %s", name, self.conversation.id, exc_info=True)

    def effective(self, settings: Settings) -> Settings:
        """``settings`` (the defaults every chat starts from) with this chat's own options applied: what its
        turns use."""
        options = chat_options(self.conversation.options)
        if "tools.disabled" in options:  # the user chose this chat's tools: they are all offered, however many
            options["tools.max_offered"] = 0
        options.update(self._answered_by(options))
        return settings.updated(options) if options else settings

    def _answered_by(self, options: dict) -> dict:
        """A chat that chose no model of its own keeps the backend and model that last answered in it (none answered
        yet: the settings' apply)."""
        if "backend" in options:
            return {}
        c = self.conversation
        last = next((m for m in reversed(c.messages) if m.role == "assistant" and m.model), None)
        backend = (last.backend or c.backend) if last is not None else None
        if last is None or backend not in ("ollama", "openai"):
            return {}
        return {"backend": backend} if f"{backend}.model" in options else {"backend": backend,
                                                                              f"{backend}.model": last.model}

    def note(self, text: str) -> Message | None:
        """Record a change of the chat's settings in it (``text``: "Model: a → b"): a note shown in the chat and kept
        with it, never sent to the model. Only in a chat that has messages (a new chat just starts that way);
        returns the note, or None. A store that can't save it costs only the note (logged)."""
        if not self.conversation.messages:
            return None
        message = Message(role="system", kind="note", content=text)
        self.conversation.messages.append(message)
        if self.store is not None:
            try:
                self.store.add_message(self.conversation, message)
            except StoreError:
                log.warning("could not save a note in chat %s", self.conversation.id, exc_info=True)
        return message

    def save_message(self, conversation: Conversation, message: Message) -> None:
        """Save a finished message: the agent's ``on_message`` (runs on the thread that runs the turn)."""
        if self.interrupting.is_set() and message.role == "assistant" and message.status == "stopped":
            message.status = "interrupted"  # the app is quitting, not the user pressing Stop
        if self.store is not None:
            self.store.add_message(conversation, message)

    def _note_outcome(self, event: Event) -> None:
        """Keep ``conversation.last_failure`` (and the store's copy) in step with ``event``. A store that
        can't record it only costs the failure card on reopening: it is logged, the turn goes on."""
        if isinstance(event, TurnFailed):
            failure = TurnFailure(kind=type(event.error).__name__, text=str(event.error))
        elif isinstance(event, AnswerFinished | TurnCancelled) or (
            isinstance(event, MessageAdded) and event.message.role == "user"
        ):
            failure = None
        else:
            return
        self.conversation.last_failure = failure
        if self.store is None:
            return
        try:
            if failure is None:
                self.store.clear_failure(self.conversation.id)
            else:
                self.store.set_failure(self.conversation.id, failure.kind, failure.text)
        except StoreError:
            log.warning("could not save the outcome of the turn in chat %s", self.conversation.id, exc_info=True)

    def info(self) -> ChatUpdated:
        """The chat's title and the backend and model answering in it, as an event."""
        backend = getattr(self._agent.backend, "name", None) if self._agent else None
        model = getattr(self._agent.backend, "model", None) if self._agent else None
        c = self.conversation
        return ChatUpdated(c.id, c.title, backend or c.backend, model or c.model)

    def compact(self, cancel: threading.Event | None = None, *, automatic: bool = False) -> Iterator[Event]:
        """Summarise the chat's earlier messages with the model: a :class:`Notice` (and one per piece when it takes
        several requests: "Summarising earlier messages (3/25)…"), then :class:`ChatCompacted` (the summary is
        saved) — or, when it cannot be done, :class:`TurnFailed` (``automatic``: a :class:`Notice`, and the turn
        goes on without); :class:`TurnCancelled` when ``cancel`` is set. ``automatic`` (before a turn) makes one
        request at most: the oldest earlier messages that do not fit in it are left out, and a notice says so.
        Nothing is lost either way."""
        agent = self.agent
        yield Notice(OUTGREW if automatic else SUMMARISING)
        try:
            steps = compaction.summarising(self.conversation, agent.backend, agent.window(), cancel,
                                           max_requests=1 if automatic else None)
            while True:
                try:
                    step = next(steps)
                except StopIteration as done:
                    summary = done.value
                    break
                if step.left_out:
                    yield Notice(LEFT_OUT.format(n=step.left_out, s="s" if step.left_out != 1 else ""))
                if step.pieces > 1:
                    yield Notice(PIECE.format(piece=step.piece, pieces=step.pieces))
            if summary is None:
                yield TurnCancelled(None)
                return
            compaction.apply(self.conversation, summary, self.store)
        except Exception as exc:  # noqa: BLE001 - every failure reaches the surface as an event
            error = exc if isinstance(exc, AgentError) else UnexpectedError(exc)
            if automatic:
                yield Notice(f"The earlier messages could not be summarised ({error.what.rstrip('.')}); "
                             "the oldest are left out instead.")
            else:
                yield TurnFailed(error)
            return
        yield ChatCompacted(summary, automatic)

    def undo_compaction(self, summary: Message) -> CompactionUndone:
        """Take a summary back: the messages it stood for are sent again. Raises :class:`StoreError`."""
        compaction.undo(self.conversation, summary, self.store)
        return CompactionUndone(summary)

    def _outgrown(self, text: str | None) -> bool:
        agent = self.agent
        if not getattr(agent, "auto_compact", False):
            return False
        fixed = estimate_text(agent.system_prompt or "") + estimate_text(text or "")
        tools = agent.offered_tools()
        if tools:
            fixed += estimate_tools(tools)
        return compaction.outgrown(self.conversation, agent.window(), fixed)

    def _window_of(self, usage: ContextUsage) -> ContextUsage:
        """``usage`` with the window as the backend knows it now — the one a refusal in this turn named, say —
        and whether it is assumed."""
        window = window_info(self.agent.backend)
        if window is None or usage.window is None:
            return usage
        return dataclasses.replace(usage, window=window.tokens, assumed=window.assumed)

    def cancel_tool_call(self, call_id: str) -> bool:
        """Cancel one running tool call of this chat's turn (any thread); the turn goes on. False when no such
        call is running (see :meth:`Agent.cancel_tool_call`)."""
        agent = self._agent
        return agent.cancel_tool_call(call_id) if agent is not None else False

    def run_turn(self, text: str | None, cancel: threading.Event | None = None,
                 attachments: Sequence[Attachment] = ()) -> Iterator[Event]:
        """One turn: ``text`` None = retry/continue from the history; ``attachments``: files attached to it.
        Ends with exactly one terminal event; :class:`ChatUpdated` follows the user's message (or comes first, for
        a retry). A chat that outgrew the model's window is compacted first, when the agent's ``auto_compact`` is on."""
        if self._outgrown(text_for_model(Message(role="user", content=text or "", attachments=list(attachments)))):
            for event in self.compact(cancel, automatic=True):
                if isinstance(event, TurnCancelled):
                    yield event
                    return
                yield event
        if text is None:
            yield self.info()
        self.permissions.chat_id = self.conversation.id
        for event in self.agent.run(self.conversation, text, cancel, attachments):
            if isinstance(event, ContextUsage):
                event = self._window_of(event)
            self._audit(event)
            if (isinstance(event, TurnCancelled) and self.interrupting.is_set() and event.partial is not None
                    and event.partial.status == "stopped"):
                event.partial.status = "interrupted"
            self._note_outcome(event)
            yield event
            if isinstance(event, MessageAdded) and event.message.role == "user":
                yield self.info()
