"""Running the tool calls of one step: permission-checked dispatch, progress, cancel of one call."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

from desktop_agent.core.events import Event, MessageAdded, ToolCallFinished, ToolCallProgress, ToolCallStarted
from desktop_agent.core.messages import Message, ToolCall
from desktop_agent.core.result_images import to_saved
from desktop_agent.core.streams import run_reporting

if TYPE_CHECKING:
    from desktop_agent.core.tools.permissions import ChatPermissions, Decision
    from desktop_agent.core.tools.registry import ToolRegistry
    from desktop_agent.core.tools.results import Attachment, ToolResult

__all__ = ["CallCancel", "ToolStep", "call_key", "dispatch"]


def call_key(call: ToolCall) -> str:
    """A tool call's name and arguments, the same for two calls asking for the same thing."""
    return call.name + "\0" + json.dumps(call.arguments, sort_keys=True, ensure_ascii=False, default=str)


class CallCancel(threading.Event):
    """The cancel event one tool call sees: set by :meth:`Agent.cancel_tool_call` for this call alone, and
    seen as set when the whole turn is stopped."""

    def __init__(self, turn: threading.Event) -> None:
        super().__init__()
        self._turn = turn

    def own(self) -> bool:
        """Cancelled on its own (not by a Stop of the turn)."""
        return super().is_set()

    def is_set(self) -> bool:
        return super().is_set() or self._turn.is_set()


class ToolStep:
    """Runs the tool calls of an Agent's steps, one step at a time, and cancels one of them on request
    (:meth:`cancel`, from any thread)."""

    def __init__(self) -> None:
        #: call id → the cancel event of that one call, while its step runs (see :meth:`cancel`)
        self.cancels: dict[str, threading.Event] = {}

    def cancel(self, call_id: str) -> bool:
        """Cancel one tool call of the running step; False when no call of that id is running or waiting."""
        event = self.cancels.get(call_id)
        if event is None:
            return False
        event.set()
        return True

    def run(
        self, calls: list[ToolCall], cancel: threading.Event, registry: ToolRegistry | None,
        permissions: ChatPermissions | None, add: Callable[[Message], None],
    ) -> Generator[Event, None, tuple[bool, bool]]:
        """Run every call in order and append one tool result per call id (``add`` appends and saves it),
        directly after the assistant message (servers refuse a history where a call has no result, or a result
        comes later). After a Stop, the remaining calls are answered as cancelled
        without running, so the history stays valid. Returns (stopped, every call had arguments the tool
        could not take)."""
        stopped = False
        invalid = bool(calls)
        own = {call.id: CallCancel(cancel) for call in calls}  # each call can be cancelled on its own
        self.cancels = dict(own)
        try:
            for call in calls:
                stopped, bad = yield from self._run_one(call, cancel, own[call.id], stopped, registry, permissions,
                                                        add)
                invalid = invalid and bad
        finally:
            self.cancels = {}
        return stopped, invalid

    def _run_one(self, call: ToolCall, cancel: threading.Event, call_cancel: CallCancel, stopped: bool,
                 registry: ToolRegistry | None, permissions: ChatPermissions | None,
                 add: Callable[[Message], None]) -> Generator[Event, None, tuple[bool, bool]]:
        """Run one call of :meth:`run` with ``registry`` (the tools offered this step), or answer it as
        cancelled; returns whether the turn is stopped, and whether the call's arguments were invalid (not
        JSON, or not what the tool takes)."""
        err: str | None
        output = ""
        decision: Decision | None = None
        attachments: tuple[Attachment, ...] = ()
        tool = registry.get(call.name) if registry is not None else None
        yield ToolCallStarted(call.id, call.name, dict(call.arguments), str(getattr(tool, "source", "") or ""))
        if stopped or cancel.is_set():
            stopped = True
            content = full = "Error: cancelled by the user before the tool ran."
            ok, status, err, duration = False, "cancelled", "cancelled by the user", 0.0
        elif call_cancel.own():
            content = full = f"Error: tool '{call.name}' was cancelled by the user before it ran."
            ok, status, err, duration = False, "cancelled", "cancelled by the user", 0.0
        elif call.arguments_error and (registry is not None and registry.get(call.name)):
            raw = (call.raw_arguments or "")[:500]
            content = full = (
                f"Error: the arguments for tool '{call.name}' were not valid JSON "
                f"({call.arguments_error}). The tool was not run. Call it again with the arguments "
                f"as one JSON object. Arguments received: {raw}"
            )
            ok, status, err, duration = False, "error", f"invalid JSON arguments: {call.arguments_error}", 0.0
        elif registry is None or len(registry) == 0:
            content = full = f"Error: tool '{call.name}' does not exist; no tools are available."
            ok, status, err, duration = False, "error", f"unknown tool '{call.name}'", 0.0
        else:
            try:
                result = yield from dispatch(registry, call, call_cancel, permissions)
                content, full, output, decision = result.content, result.full, result.output, result.decision
                attachments = result.attachments
                ok, status, err, duration = result.ok, result.status, result.error, result.duration_ms
            except Exception as exc:  # noqa: BLE001 - dispatch should never raise; be safe anyway
                content = full = f"Error: {type(exc).__name__}: {exc}"
                ok, status, err, duration = False, "error", content[7:], 0.0
            if cancel.is_set() or (status == "cancelled" and not call_cancel.own()):
                stopped = True
        yield ToolCallFinished(call.id, call.name, ok, full, err, duration, status, output=output, decision=decision,
                               attachments=attachments)
        result_msg = Message(
            role="tool",
            content=content,
            tool_call_id=call.id,
            tool_name=call.name,
            tool_status=status,
            duration_ms=duration,
            full_content=full if full != content else None,
            attachments=to_saved(attachments, call.id),  # its images, kept with the chat (not sent to the model)
        )
        add(result_msg)
        yield MessageAdded(result_msg)
        invalid = status == "error" and (str(err or "").startswith("invalid") or "invalid arguments" in content)
        return stopped, invalid


def dispatch(registry: ToolRegistry, call: ToolCall, call_cancel: CallCancel,
             permissions: ChatPermissions | None) -> Generator[Event, None, ToolResult]:
    """Dispatch ``call``; its result. A tool that reports progress (an MCP server's) is dispatched on a worker
    thread while its reports are yielded as :class:`ToolCallProgress`. Any other is dispatched in this
    thread: the dispatch itself runs the function on a long-lived worker and waits for it, Stop, the call's
    own cancel and the timeout (or calls it here when it is declared ``inline``: quick, never blocking)."""
    tool = registry.get(call.name)
    if tool is None or getattr(tool, "inline", False) or not getattr(tool, "reports_progress", True):
        return registry.dispatch(call.name, call.arguments, cancel=call_cancel, chat=permissions,
                                 call_id=call.id)

    def work(report: Callable[[ToolCallProgress], None]) -> ToolResult:
        def progress(done: float, total: float | None, message: str | None) -> None:
            report(ToolCallProgress(call.id, call.name, done, total, message))

        return registry.dispatch(call.name, call.arguments, cancel=call_cancel, chat=permissions,
                                 call_id=call.id, progress=progress)

    return (yield from run_reporting(work, name=f"call:{call.name}"))
