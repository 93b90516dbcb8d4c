"""How a tool call gets to the function: a tool that cannot report progress (a Python function) is dispatched from
the agent's own thread, which hands the function to a long-lived worker and waits for it, Stop, the call's own
cancel and the timeout — one hand-off, no thread started per call; a tool that reports progress (an MCP server's)
is still dispatched on a worker that carries its reports. Timeout, cancel, Stop, errors and the permission check
come out as they always did."""

from __future__ import annotations

import threading
from typing import Any

from desktop_agent.core import tool_step
from desktop_agent.core.agent import Agent
from desktop_agent.core.events import AnswerFinished, ToolCallFinished, ToolCallProgress, ToolCallStarted, TurnCancelled
from desktop_agent.core.messages import Conversation
from desktop_agent.core.streams import run_watched
from desktop_agent.core.tools.decorator import ToolError, tool
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.permissions import ChatPermissions
from desktop_agent.core.tools.registry import ToolRegistry

from .scripted import ScriptedBackend, call, calls, text
from .test_inline_tools import _StartCounter


class _Recording(ToolRegistry):
    """A registry that notes the thread each dispatch is made from."""

    def __init__(self) -> None:
        super().__init__()
        self.dispatched_from: list[threading.Thread] = []

    def dispatch(self, *args: Any, **kwargs: Any) -> Any:
        self.dispatched_from.append(threading.current_thread())
        return super().dispatch(*args, **kwargs)


def _turn(registry: ToolRegistry, *replies: Any, cancel: threading.Event | None = None,
          agent: Agent | None = None) -> list[Any]:
    agent = agent or Agent(ScriptedBackend(*replies), registry)
    return list(agent.run(Conversation(), "go", cancel or threading.Event()))


def _finished(events: list[Any]) -> list[ToolCallFinished]:
    return [e for e in events if isinstance(e, ToolCallFinished)]


def test_a_plain_tool_is_dispatched_from_the_agents_thread_and_runs_on_a_worker():
    ran_in: list[threading.Thread] = []

    def where() -> str:
        """Where it runs."""
        ran_in.append(threading.current_thread())
        return "here"

    reg = _Recording()
    reg.register(where)
    events = _turn(reg, calls(call("where", {}, "c1")), text("done"))
    assert _finished(events)[0].status == "ok" and isinstance(events[-1], AnswerFinished)
    assert reg.dispatched_from == [threading.current_thread()]  # no worker in between: one hand-off
    assert ran_in and ran_in[0] is not threading.current_thread()  # the function itself: on a worker


def test_no_thread_is_started_per_call_of_a_plain_tool():
    def quick(n: int) -> int:
        """Quick, but not declared inline."""
        return n

    reg = ToolRegistry()
    reg.register(quick)
    replies = [calls(call("quick", {"n": i}, f"c{i}")) for i in range(5)] + [text("done")]
    _turn(reg, *replies)  # (the workers a first turn starts stay for the next ones)
    replies = [calls(call("quick", {"n": i}, f"c{i}")) for i in range(5)] + [text("done")]
    with _StartCounter() as counter:
        events = _turn(reg, *replies)
    assert [f.status for f in _finished(events)] == ["ok"] * 5
    assert counter.count == 0


def test_run_watched_starts_no_thread_per_call():
    run_watched(lambda: 1, None)
    with _StartCounter() as counter:
        outcomes = [run_watched(lambda i=i: i, threading.Event()) for i in range(20)]
    assert outcomes == [("ok", i) for i in range(20)]
    assert counter.count == 0


def test_a_plain_tool_past_its_timeout_is_a_timeout_and_the_turn_goes_on():
    release = threading.Event()

    @tool(timeout_s=0.1)
    def hangs() -> str:
        """Never answers in time."""
        release.wait(10)
        return "late"

    reg = ToolRegistry()
    reg.register(hangs)
    try:
        events = _turn(reg, calls(call("hangs", {}, "c1")), text("done"))
    finally:
        release.set()
    finished = _finished(events)[0]
    assert finished.status == "timeout" and finished.result == "Error: tool 'hangs' timed out after 0.1 s"
    assert isinstance(events[-1], AnswerFinished)


def test_a_plain_tool_cancelled_on_its_own_is_cancelled_and_the_turn_goes_on():
    started, release = threading.Event(), threading.Event()

    def hangs() -> str:
        """Runs until released."""
        started.set()
        release.wait(10)
        return "late"

    reg = ToolRegistry()
    reg.register(hangs)
    agent = Agent(ScriptedBackend(calls(call("hangs", {}, "c1")), text("done")), reg)

    def cancel_when_running() -> None:
        started.wait(10)
        agent.cancel_tool_call("c1")

    helper = threading.Thread(target=cancel_when_running)
    helper.start()
    try:
        events = _turn(reg, agent=agent)
    finally:
        release.set()
        helper.join()
    finished = _finished(events)[0]
    assert finished.status == "cancelled" and "late" not in finished.result
    assert isinstance(events[-1], AnswerFinished)


def test_stop_during_a_plain_tool_cancels_the_turn():
    started = threading.Event()
    release = threading.Event()
    stop = threading.Event()

    def hangs() -> str:
        """Runs until released."""
        started.set()
        release.wait(10)
        return "late"

    reg = ToolRegistry()
    reg.register(hangs)
    presser = threading.Thread(target=lambda: (started.wait(10), stop.set()))
    presser.start()
    try:
        events = _turn(reg, calls(call("hangs", {}, "c1")), text("never asked"), cancel=stop)
    finally:
        release.set()
        presser.join()
    assert _finished(events)[0].status == "cancelled"
    assert isinstance(events[-1], TurnCancelled)


def test_a_plain_tool_failing_gives_the_same_error_results():
    def refuses() -> str:
        """Refuses."""
        raise ToolError("no such city")

    def breaks() -> str:
        """Breaks."""
        raise ValueError("bad value")

    def exits() -> str:
        """Exits."""
        raise SystemExit(3)

    reg = ToolRegistry()
    for fn in (refuses, breaks, exits):
        reg.register(fn)
    events = _turn(reg, calls(call("refuses", {}, "a"), call("breaks", {}, "b"), call("exits", {}, "c")),
                   text("done"))
    results = [(f.status, f.result) for f in _finished(events)]
    assert results[0] == ("error", "Error: no such city")
    assert results[1] == ("error", "Error: ValueError: bad value")
    assert results[2][0] == "error" and "SystemExit" in results[2][1]
    assert isinstance(events[-1], AnswerFinished)


def test_a_plain_tool_needing_approval_does_not_run_without_it():
    ran: list[str] = []

    @tool(requires_approval=True)
    def risky() -> str:
        """Needs the user's yes."""
        ran.append("ran")
        return "done"

    reg = ToolRegistry()
    reg.register(risky)
    agent = Agent(ScriptedBackend(calls(call("risky", {}, "c1")), text("ok")), reg)
    agent.permissions = ChatPermissions(chat_id="chat", asker=None)  # no one to ask
    events = _turn(reg, agent=agent)
    assert _finished(events)[0].status == "denied" and ran == []


class _Reporting(Tool):
    """A tool that reports how far it is (as an MCP server's does), then waits until its report was seen."""

    reports_progress = True

    def __init__(self) -> None:
        def count() -> str:
            """Counts, saying so."""
            return ""

        super().__init__(count)
        self.seen = threading.Event()

    def invoke(self, kwargs: dict[str, Any], cancel: threading.Event | None = None, progress: Any = None) -> Any:
        assert progress is not None
        progress(1.0, 3.0, "step 1")
        self.seen.wait(5)
        return "counted"


def test_a_tool_that_reports_progress_is_still_carried_by_a_worker_with_its_reports():
    reg = _Recording()
    reporting = _Reporting()
    reg.register(reporting)
    events = []
    for event in Agent(ScriptedBackend(calls(call("count", {}, "c1")), text("done")), reg).run(Conversation(), "go"):
        events.append(event)
        if isinstance(event, ToolCallProgress):
            reporting.seen.set()
    assert reg.dispatched_from and reg.dispatched_from[0] is not threading.current_thread()
    progress = [e for e in events if isinstance(e, ToolCallProgress)]
    assert [(p.call_id, p.progress, p.total, p.message) for p in progress] == [("c1", 1.0, 3.0, "step 1")]
    started, finished = events.index(next(e for e in events if isinstance(e, ToolCallStarted))), _finished(events)[0]
    assert started < events.index(progress[0]) < events.index(finished) and finished.result == "counted"


def test_python_tools_report_no_progress_and_mcp_tools_do():
    from desktop_agent.core.mcp.tools import McpTool

    def plain() -> str:
        """Plain."""
        return ""

    assert Tool(plain).reports_progress is False
    assert McpTool.reports_progress is True
    assert tool_step.run_reporting is not None  # (the worker that carries reports is still there for them)
