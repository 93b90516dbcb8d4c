"""The ReAct loop: ask the model, run the tool calls it asks for, send the results back
as ``role="tool"`` messages, repeat until it answers or ``max_steps`` model calls were made.

:meth:`Agent.run` is a generator of :mod:`~desktop_agent.core.events`; the window, the terminal chat
and the tests consume the same events. Per turn it yields, in order:

- ``MessageAdded`` for each finished message as it is appended to the conversation (the user message,
  each assistant message with tool calls, each tool result), after ``on_message`` saved it — so every
  finished message is stored before the next model call and a crash loses at most the answer being
  streamed;
- ``TextDelta`` / ``ThinkingDelta`` / ``Notice`` while the model streams (a ``Notice`` also when an
  empty answer is asked again without streaming or without tools, see
  :mod:`~desktop_agent.core.capabilities`);
- ``ToolCallProgress`` while a call runs and its tool reports how far it is (a tool that can report, an MCP
  server's, is dispatched on a worker thread meanwhile);
- ``ToolCallStarted`` / ``ToolCallFinished`` around each tool call (when a model asks again for calls
  it already had the results of in this turn, a ``Notice``, and the rest of the turn offers no tools);
- exactly one terminal event: ``AnswerFinished(message)`` (the final answer, appended and saved),
  ``TurnFailed(error, partial)`` or ``TurnCancelled(partial)``. A partial answer is appended and saved
  (status ``interrupted`` / ``stopped``) only when some answer text had arrived; no empty assistant
  message is ever saved.

Errors: backends raise :class:`~desktop_agent.core.errors.AgentError`; anything else (a bug, an
unexpected client exception, a failing ``on_message``) becomes :class:`UnexpectedError`, whose
``__cause__`` / ``original`` is the exception and ``details`` the traceback text ("Copy details").
``run`` itself never raises (except ``KeyboardInterrupt`` / ``SystemExit``).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from desktop_agent.core import state
from desktop_agent.core.answer import results_answer, turn_results
from desktop_agent.core.attachments import without_images
from desktop_agent.core.backends.base import ChatBackend
from desktop_agent.core.capabilities import Capabilities, cannot_use, server_key
from desktop_agent.core.context import Selection, budget_for, plan_request, request_for
from desktop_agent.core.errors import (
    AgentError,
    ContextTooLong,
    EmptyAnswer,
    MaxStepsExceeded,
    UnexpectedError,
)
from desktop_agent.core.events import (
    AnswerFinished,
    ContextUsage,
    Event,
    MessageAdded,
    Notice,
    ToolsOffered,
    TurnCancelled,
    TurnFailed,
)
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.messages import Attachment, Conversation, Message
from desktop_agent.core.model_info import ModelFacts
from desktop_agent.core.model_step import ModelStep, StepOutcome
from desktop_agent.core.settings import DEFAULT_SYSTEM_PROMPT
from desktop_agent.core.tokens import Calibration, estimate_tools
from desktop_agent.core.tool_step import ToolStep, call_key
from desktop_agent.core.tools.relevance import Relevant, judgeable, relevant_tools

if TYPE_CHECKING:
    from desktop_agent.core.tools.permissions import ChatPermissions
    from desktop_agent.core.tools.registry import ToolRegistry
    from desktop_agent.core.tools.relevance import ToolOffer

__all__ = ["DEFAULT_SYSTEM_PROMPT", "Agent", "UnexpectedError"]

OnMessage = Callable[[Conversation, Message], None]

_FIXED_CHOICES = ("auto", "required", "none")

#: the notice when the model asks again for tool calls it already has the results of
REPEATED_CALLS = (
    "The model asked again for a tool call it already had the result of; asking it to answer without tools."
)

#: the notice when a server counted far fewer prompt tokens than were sent (it cut the prompt)
PROMPT_CUT = ("The server read only about {reported} of the about {sent} tokens sent: the answer may have missed "
              "the start of the chat (a smaller context window than it says?).")
#: the notice when the request is asked again with fewer earlier messages
SHORTER = "The chat was too long for the model's context window; asked again with fewer earlier messages."
#: the notice when even the system prompt, the tools and the new message do not fit
TOO_BIG = ("The system prompt, the tools and the new message alone (about {tokens} tokens) do not fit the model's "
           "context window ({window} tokens); the answer may miss part of them.")
#: the notice when images go to a model its server says cannot see: they are left out (the window says so before)
NO_VISION = "{model} cannot see images (its server says it has no vision): {names} left out of the request."
#: the notice when the steps ran out after tools ran: the model answers from their results
STEPS_USED = "The model used all {steps} steps; asking it for its answer from what the tools said."
#: a server's count this much below ours means it cut the prompt
CUT_RATIO = 0.6


# ---- the agent ----------------------------------------------------------------------------------


class Agent:
    """Runs turns of a conversation with a backend and (optionally) a tool registry.

    ``max_steps``: model calls per turn (each may ask for tools). ``max_history``: at most this many
    history messages per call (0: no count limit); the history is chosen by the model's context window
    (``backend.context_window()``, see :mod:`desktop_agent.core.context`). ``tool_choice``: ``auto``, ``required``,
    ``none`` or a tool name; it applies to the first model call of a turn only (later calls use
    ``auto``, so a forced tool cannot loop). ``on_message(conversation, message)`` saves a finished
    message (e.g. :meth:`ConversationStore.add_message`); it is called synchronously, before the
    next model call. ``capabilities``: what is learned about servers and models (default: the
    process-wide :data:`~desktop_agent.core.state.LEARNED`). ``tools_anyway``: offer tools although the
    server says the model cannot use them (the user's choice). ``calibration``: token counts learned from the
    servers (default: :data:`~desktop_agent.core.state.CALIBRATION`). ``max_offered``: with more tools than
    this, each turn offers the most relevant ones and ``find_tools`` (:mod:`~desktop_agent.core.tools.relevance`;
    None or 0: always all). ``relevant_only``: each message is offered only the few tools that fit it, or none
    (then it is answered without tools); a message that clearly means one tool gets that tool as its
    ``tool_choice``, and is answered from its result; a tool chosen for the message (``tool_choice``) is offered
    alone.
    ``tools_prompt``: added to the system prompt of a request that offers tools.
    """

    def __init__(
        self,
        backend: ChatBackend,
        registry: ToolRegistry | None = None,
        *,
        system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
        max_steps: int = 8,
        max_history: int = 50,
        tool_choice: str = "auto",
        on_message: OnMessage | None = None,
        capabilities: Capabilities | None = None,
        tools_anyway: bool = False,
        calibration: Calibration | None = None,
        max_offered: int | None = None,
        relevant_only: bool = False,
        tools_prompt: str | None = None,
    ):
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.backend = backend
        self.registry = registry
        self.system_prompt = system_prompt
        self.max_steps = max_steps
        self.max_history = max_history
        self.tool_choice = tool_choice or "auto"
        self.on_message = on_message
        #: the chat's permission grants and asker (set by its ChatSession; None: "ask" calls are denied)
        self.permissions: ChatPermissions | None = None
        self.capabilities = capabilities if capabilities is not None else state.LEARNED
        self.tools_anyway = tools_anyway
        #: summarise earlier messages before a turn when the chat outgrew the window (read by ChatSession)
        self.auto_compact = False
        self.calibration = calibration if calibration is not None else state.CALIBRATION
        #: one model call and its stream; running one step's tool calls (and cancelling one of them)
        self._model_step = ModelStep(backend)
        self._tool_step = ToolStep()
        self.max_offered = max_offered
        #: offer each message only the tools that fit it, or none (see ``relevance.relevant_tools``)
        self.relevant_only = relevant_only
        #: what the system prompt adds in a request that offers tools (how to use them)
        self.tools_prompt = tools_prompt

    # ---- public ---------------------------------------------------------------------------------

    def run(
        self, conversation: Conversation, user_text: str | None, cancel: threading.Event | None = None,
        attachments: Sequence[Attachment] = (),
    ) -> Iterator[Event]:
        """Run one turn; yields events and ends with exactly one terminal event.

        ``user_text`` None = retry/continue from the existing history (after an error). ``cancel``
        is checked between stream chunks, between steps and while tools run. ``attachments``: the files attached
        to the user's message.
        """
        cancel = cancel if cancel is not None else threading.Event()
        inner = self._run(conversation, user_text, cancel, attachments)
        try:
            for event in inner:
                yield event
                if isinstance(event, (AnswerFinished, TurnFailed, TurnCancelled)):
                    return
        except Exception as exc:  # noqa: BLE001 - every failure must reach the consumer as an event
            yield TurnFailed(exc if isinstance(exc, AgentError) else UnexpectedError(exc))
            return
        finally:
            inner.close()  # consumer stopped early: close the backend stream now, not at GC
        # the loop always ends with a terminal event; this is a safety net
        yield TurnFailed(UnexpectedError(RuntimeError("the turn ended without a result")))

    def cancel_tool_call(self, call_id: str) -> bool:
        """Cancel one tool call of the running turn (any thread): the call is stopped (in the tool host its
        process is killed), the model gets "cancelled by the user" as its result, and the turn goes on.
        Returns False when no call of that id is running or waiting in the current step."""
        return self._tool_step.cancel(call_id)

    # ---- internals ------------------------------------------------------------------------------

    @property
    def _model(self) -> str | None:
        return getattr(self.backend, "model", None)

    @property
    def _backend_name(self) -> str | None:
        return getattr(self.backend, "name", None)

    def _add(self, conversation: Conversation, message: Message) -> None:
        conversation.messages.append(message)
        conversation.updated_at = time.time()
        if message.role == "user" and not conversation.title:
            conversation.title = conversation.default_title()  # before the store creates the chat row
        if self.on_message is not None:
            try:
                self.on_message(conversation, message)
            except BaseException:
                if message.role == "user":  # not saved: not part of the chat either (the turn fails, the text
                    conversation.messages.remove(message)  # goes back to the user, nothing is doubled)
                raise

    def offered_tools(self) -> list[dict[str, Any]] | None:
        """Every tool's schema this agent can offer (None: it has no tools)."""
        if self.registry is None or len(self.registry) == 0:
            return None
        return self.registry.schemas() or None

    def _offer(self, conversation: Conversation, tools: list[dict[str, Any]] | None, choice: str) -> ToolOffer | None:
        """The turn's :class:`ToolOffer` when there are more tools than ``max_offered`` (the user's named
        ``tool_choice`` is always offered); None: every tool is offered."""
        if tools is None or self.registry is None or not self.max_offered or len(self.registry) <= self.max_offered:
            return None
        if choice == "none":
            return None
        from desktop_agent.core.tools.relevance import ToolOffer

        pinned = [choice] if choice not in _FIXED_CHOICES else []
        return ToolOffer(self.registry, self.max_offered, conversation.messages, pinned)

    def _first_choice(self, tools: list[dict[str, Any]] | None) -> tuple[str, str | None]:
        """The tool_choice for the first call and a notice when the configured one cannot be used."""
        choice = self.tool_choice
        if tools is None:
            return "auto", None
        if choice in _FIXED_CHOICES:
            return choice, None
        if self.registry is not None and self.registry.get(choice) is not None:
            return choice, None
        return "auto", f"tool_choice '{choice}' is not a loaded tool; using 'auto'."

    def _sees(self) -> bool:
        """False when the model's server says it cannot see images."""
        known = getattr(self.backend, "model_facts", None)
        return (known() if callable(known) else ModelFacts()).can("vision")

    def _supported(self, tools: list[dict[str, Any]] | None) -> tuple[list[dict[str, Any]] | None, list[str]]:
        """``tools`` unless the model cannot use them (its server says so, or said so in an error), and the
        notices for what this turn goes without (tools, thinking)."""
        notes: list[str] = []
        model = self._model or "?"
        known = getattr(self.backend, "model_facts", None)
        facts = known() if callable(known) else ModelFacts()
        if tools is not None and not self.tools_anyway and (
            not facts.can("tools") or not self.capabilities.learned(self.backend).tools
        ):
            tools = None
            notes.append(cannot_use("tools", model))
        thinks = getattr(self.backend, "thinks", None)
        if getattr(self.backend, "think", None) is True and callable(thinks) and not thinks():
            notes.append(cannot_use("thinking", model))
        return tools, notes

    def window(self) -> int | None:
        """The model's context window in tokens (None: the backend cannot say)."""
        window = getattr(self.backend, "context_window", None)
        if not callable(window):
            return None
        try:
            value = window()
        except Exception:  # noqa: BLE001 - the window is a help; a turn never fails for it
            return None
        return value if isinstance(value, int) and value > 0 else None

    def _scaled(self, raw: int) -> int:
        """A raw token estimate as this model's server counts tokens."""
        return self.calibration.scale(server_key(self.backend), raw)

    def _budget(self, window: int | None) -> int | None:
        """The prompt budget in raw (uncalibrated) estimated tokens; None: no limit known."""
        key = server_key(self.backend)
        budget = budget_for(window) if window else None
        limit = self.calibration.limit(key)
        if limit:
            below = max(1, int(limit * 0.8))
            budget = below if budget is None else min(budget, below)
        if budget is None:
            return None
        return max(1, int(budget / self.calibration.ratio(key)))

    def _usage(self, selection: Selection, tools: list[dict[str, Any]] | None,
               window: int | None) -> Iterator[Event]:
        """After a model call: check the server's prompt count against what was sent (a cut prompt is said),
        learn from it, and report the context used."""
        key = server_key(self.backend)
        raw = selection.tokens - (0 if self._model_step.sent_tools else estimate_tools(tools))
        sent = self.calibration.scale(key, raw)
        reported = self._model_step.prompt_tokens
        if reported:
            if sent >= 200 and reported < CUT_RATIO * sent:
                yield Notice(PROMPT_CUT.format(reported=reported, sent=sent))
            else:
                self.calibration.observe(key, raw, reported)
        if window is not None:  # (a backend that cannot say its window has no meter)
            yield ContextUsage(reported or sent, window, bool(reported), selection.left_out, selection.trimmed)

    def _run(
        self, conversation: Conversation, user_text: str | None, cancel: threading.Event,
        attachments: Sequence[Attachment] = (),
    ) -> Generator[Event, None, None]:
        if self._backend_name:
            conversation.backend = self._backend_name
        if self._model:
            conversation.model = self._model
        if user_text is not None:
            user = Message(role="user", content=user_text, attachments=list(attachments))
            self._add(conversation, user)
            yield MessageAdded(user)

        tools = self.offered_tools()
        tools, notes = self._supported(tools)
        for note in notes:
            yield Notice(note)
        choice, problem = self._first_choice(tools)
        if problem:
            yield Notice(problem)
        registry = self.registry
        fitting = self._fitting(conversation, tools, choice)
        offer = None
        if fitting is not None:
            # (a call of a tool that was not offered — the model knows it from earlier turns — still goes
            # through the whole registry and its permission check)
            tools = self.registry.subset(fitting.names).schemas() if fitting.names and self.registry else None
            if fitting.sure:
                choice = fitting.sure  # the model is asked to call the tool the message clearly means
        else:
            offer = self._offer(conversation, tools, choice)
            if offer is not None:
                registry, tools = offer.registry, offer.schemas()
        if self.registry is not None and len(self.registry):
            yield self._offered(tools, fitting, choice)
        tool_names = set(registry.names()) if registry is not None and (tools is not None or fitting) else set()
        window = self.window()
        told: set[str] = set()  # notices given once per turn
        answered: set[str] = set()  # the tool calls run in this turn (name and arguments)
        withdrawn = False  # the tools were taken away for the rest of the turn (the model repeated its calls)
        self._model_step.catch_written_calls = False  # (then: a call written as text is still caught, not shown)
        previous: Selection | None = None  # the last step's history (the next step's extends it)
        retried = retried_now = False  # a chosen tool called with invalid arguments was asked again once

        step = 0
        while step < self.max_steps:
            if cancel.is_set():
                yield TurnCancelled(None)
                return
            if step > 0 and not retried_now:
                choice = "auto"
                if offer is not None and tools is not None:
                    tools = offer.schemas()  # with the tools find_tools found in the last step
            retried_now = False
            outcome, selection = yield from self._step(conversation, tools, choice, tool_names, window, previous,
                                                       cancel, told)
            previous = selection
            content, thinking, calls, error = outcome

            if error is not None or cancel.is_set():
                yield self._interrupted(conversation, content, thinking, error)
                return

            if not calls:
                if not content.strip():
                    if turn_results(conversation.messages):  # the tools ran, the model said nothing: ask once more
                        yield from self._answer_in_words(conversation, window, cancel, told)
                        return
                    yield TurnFailed(EmptyAnswer())
                    return
                yield self._answer(conversation, content, thinking)
                return

            if withdrawn:
                # offered no tools, the model still wrote a call (a small model copying its earlier ones): the
                # answer is what the tools already said, not the call as text
                yield self._answer(conversation, results_answer(conversation.messages) or content, thinking)
                return

            step_msg = Message(
                role="assistant",
                content=content,
                thinking=thinking,
                tool_calls=calls,
                model=self._model,
                backend=self._backend_name,
            )
            self._add(conversation, step_msg)
            yield MessageAdded(step_msg)

            keys = [call_key(c) for c in calls]
            repeated = all(k in answered for k in keys)
            answered.update(keys)
            stopped, invalid = yield from self._tool_step.run(calls, cancel, registry, self.permissions,
                                                              functools.partial(self._add, conversation))
            if stopped:
                yield TurnCancelled(None)
                return
            if fitting is not None and not withdrawn and self.registry is not None:
                # a tool the model called stays offered for the rest of the turn (also one it was not offered:
                # its result is then sent back as the protocol's tool result, not as text)
                names = tuple(dict.fromkeys([*(t["function"]["name"] for t in tools or ()),
                                             *(c.name for c in calls if c.name in self.registry)]))
                if names and len(names) != len(tools or ()):
                    tools = self.registry.subset(names).schemas()
                    yield ToolsOffered(names, QT_TRANSLATE_NOOP("ToolsOffered", "the tools called in this turn"))
            step += 1
            chosen = choice not in _FIXED_CHOICES  # this step asked for one tool by name
            meant = (fitting is not None and fitting.sure is not None and not fitting.chosen
                     and all(c.name == fitting.sure for c in calls))
            if meant and step == 1 and not (invalid and chosen and not retried):
                # the tool the message clearly meant has answered (or failed, its one retry spent): the model answers
                # from what it said (a small model left to go on with tools calls it again and again — some servers
                # drop the results from its prompt)
                yield from self._answer_in_words(conversation, window, cancel, told)
                return
            if invalid and chosen and not retried:
                # the tool the model was asked to call got arguments it could not take: once, the model is
                # asked again (it has the validation message as the result) and that does not count as a step
                retried = retried_now = True
                step -= 1
                continue
            if repeated:
                # a model asking again for calls whose results it has is stuck (small models do this,
                # and so do servers that drop tool results from the prompt): the rest of the turn
                # offers no tools, so that it answers — also when it was offered none (a tool it knows from
                # earlier turns, or one it made up, called again and again)
                offered_some = tools is not None
                tools, withdrawn = None, True  # (the names stay: a call written as text is still caught)
                self._model_step.catch_written_calls = True
                yield Notice(REPEATED_CALLS)
                if offered_some:
                    yield ToolsOffered((), QT_TRANSLATE_NOOP("ToolsOffered", "the model repeated its calls"))

        if turn_results(conversation.messages):  # the steps ran out: the model answers from what the tools said
            yield Notice(STEPS_USED.format(steps=self.max_steps))
            yield from self._answer_in_words(conversation, window, cancel, told)
            return
        yield TurnFailed(MaxStepsExceeded(self.max_steps))

    def _step(self, conversation: Conversation, tools: list[dict[str, Any]] | None, choice: str,
              tool_names: set[str], window: int | None, previous: Selection | None, cancel: threading.Event,
              told: set[str]) -> Generator[Event, None, tuple[StepOutcome, Selection]]:
        """One step's model call with the history that fits the window (asked once more with fewer earlier
        messages when the server says it was too long); its outcome and the history sent."""
        shortened = False
        system = self._system_prompt(tools)
        while True:
            selection = plan_request(conversation.messages, system, budget=self._budget(window),
                                     tools=tools, max_history=self.max_history, after=previous)
            previous = selection
            if not selection.fits and window and "too big" not in told:
                told.add("too big")
                yield Notice(TOO_BIG.format(tokens=self._scaled(selection.tokens), window=window))
            request = request_for(selection, system)
            if not self._sees():  # a model that cannot see gets no image (its server would refuse the request)
                request, left = without_images(request)
                if left and "no vision" not in told:
                    told.add("no vision")
                    yield Notice(NO_VISION.format(model=self._model or "?", names=", ".join(left)))
            self._model_step.prompt_tokens, self._model_step.sent_tools = None, True
            outcome = yield from self._model_step.call(request, tools, choice, tool_names, cancel, told,
                                                       self.capabilities, self.tools_anyway,
                                                       tokens=self._scaled(selection.tokens))
            content, _thinking, _calls, error = outcome
            if (isinstance(error, ContextTooLong) and not shortened and not content.strip()
                    and not cancel.is_set() and len(selection.messages) > 1):
                # once: with fewer earlier messages (and remembered, so later requests stay below it)
                shortened = True
                self.calibration.refused(server_key(self.backend), self._scaled(selection.tokens))
                yield Notice(SHORTER)
                continue
            break
        if outcome[3] is None and not cancel.is_set():
            yield from self._usage(selection, tools, window)
        return outcome, selection

    def _answer_in_words(self, conversation: Conversation, window: int | None, cancel: threading.Event,
                         told: set[str]) -> Generator[Event, None, None]:
        """The turn's last model call, without tools: the model answers from what the tools said
        (:func:`~desktop_agent.core.answer.answer_request`). When it says nothing again, the answer is the
        tools' results, readable, with a note."""
        outcome, _selection = yield from self._step(conversation, None, "none", set(), window, None, cancel, told)
        content, thinking, _calls, error = outcome
        if error is not None or cancel.is_set():
            yield self._interrupted(conversation, content, thinking, error)
            return
        if not content.strip():
            content = results_answer(conversation.messages) or ""
        if not content.strip():
            yield TurnFailed(EmptyAnswer())
            return
        yield self._answer(conversation, content, thinking)

    def _answer(self, conversation: Conversation, content: str, thinking: str) -> AnswerFinished:
        answer = Message(role="assistant", content=content, thinking=thinking, model=self._model,
                         backend=self._backend_name)
        self._add(conversation, answer)
        return AnswerFinished(answer)

    def _interrupted(self, conversation: Conversation, content: str, thinking: str,
                     error: AgentError | None) -> TurnCancelled | TurnFailed:
        """The end of a turn stopped (``error`` None) or failed: a partial answer is kept when there is one."""
        partial = None
        if content.strip():
            partial = Message(
                role="assistant",
                content=content,
                thinking=thinking,
                status="stopped" if error is None else "interrupted",
                model=self._model,
                backend=self._backend_name,
            )
            self._add(conversation, partial)
        if error is None:
            return TurnCancelled(partial)
        return TurnFailed(error, partial)

    def _system_prompt(self, tools: list[dict[str, Any]] | None) -> str | None:
        """The system prompt of a request: with :attr:`tools_prompt` when it offers tools."""
        if tools and self.tools_prompt:
            return f"{self.system_prompt}\n{self.tools_prompt}" if self.system_prompt else self.tools_prompt
        return self.system_prompt

    def _fitting(self, conversation: Conversation, tools: list[dict[str, Any]] | None,
                 choice: str) -> Relevant | None:
        """The tools that fit the new message, when this agent offers only those (automatic choice, and not a
        chat's own selection of every tool); None: the offer is not narrowed by the message."""
        if not self.relevant_only or tools is None or self.registry is None or choice in ("none", "required"):
            return None
        if choice != "auto":  # the user chose the tool for this message: it is offered alone
            return Relevant((choice,), {}, choice, named=True, chosen=True)
        last = next((m for m in reversed(conversation.messages) if m.role == "user"), None)
        if last is not None and (last.content or "").strip() and not judgeable(last.content or ""):
            return None  # a message in a script the judge cannot read: the offer is not narrowed
        return relevant_tools(self.registry, conversation.messages)

    def _offered(self, tools: list[dict[str, Any]] | None, fitting: Relevant | None, choice: str) -> ToolsOffered:
        names = tuple(t.get("function", {}).get("name", "") for t in tools or ())
        chosen = choice if choice not in _FIXED_CHOICES else None
        if fitting is not None:
            reason = fitting.reason()
        elif not tools:
            reason = (QT_TRANSLATE_NOOP("ToolsOffered", "tools are off for this model") if self.offered_tools()
                      else QT_TRANSLATE_NOOP("ToolsOffered", "no tools"))
        elif chosen:
            reason = QT_TRANSLATE_NOOP("ToolsOffered", "the tool chosen for this message")
        elif choice == "required":
            reason = QT_TRANSLATE_NOOP("ToolsOffered", "every tool; a tool call is required")
        else:
            reason = (QT_TRANSLATE_NOOP("ToolsOffered", "every tool") if len(names) == len(self.registry or ())
                      else QT_TRANSLATE_NOOP("ToolsOffered", "the most relevant tools"))
        return ToolsOffered(names, reason, chosen)
