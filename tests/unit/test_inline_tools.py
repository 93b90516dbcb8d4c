"""Tools declared ``inline`` (quick, never blocking): called in the dispatching thread, no worker hand-off; Stop
and the timeout keep their outcome; a tool that breaks the promise runs on a worker from then on."""

from __future__ import annotations

import threading
import time

from desktop_agent.core.agent import Agent
from desktop_agent.core.events import AnswerFinished, ToolCallFinished
from desktop_agent.core.messages import Conversation
from desktop_agent.core.tools import dispatch
from desktop_agent.core.tools.decorator import ToolError, tool
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.tools.relevance import ToolOffer


class _StartCounter:
    """Counts the ``Thread.start`` calls this thread makes while the block runs (a test server's own
    threads are not counted)."""

    def __enter__(self) -> _StartCounter:
        self.count = 0
        self._start = threading.Thread.start
        me = threading.current_thread()
        counter = self

        def start(thread: threading.Thread) -> None:
            if threading.current_thread() is me:
                counter.count += 1
            counter._start(thread)

        threading.Thread.start = start  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        threading.Thread.start = self._start  # type: ignore[method-assign]


def test_the_decorator_records_inline_and_the_tool_keeps_it():
    @tool(inline=True)
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    def plain() -> str:
        """Plain."""
        return ""

    assert Tool.from_function(add).inline is True
    assert Tool.from_function(plain).inline is False


def test_an_inline_tool_runs_in_the_calling_thread_and_starts_no_thread():
    seen: list[threading.Thread] = []

    @tool(inline=True)
    def where(n: int) -> int:
        """Where it runs."""
        seen.append(threading.current_thread())
        return n * 2

    reg = ToolRegistry()
    reg.register(where)
    reg.dispatch("where", {"n": 1})  # (whatever a first call sets up)
    with _StartCounter() as counter:
        results = [reg.dispatch("where", {"n": i}, cancel=threading.Event()) for i in range(5)]
    assert [r.content for r in results] == ["0", "2", "4", "6", "8"] and all(r.ok for r in results)
    assert all(t is threading.current_thread() for t in seen)
    assert counter.count == 0


def test_a_tool_not_declared_inline_still_runs_on_a_worker():
    seen: list[threading.Thread] = []

    def elsewhere() -> str:
        """Elsewhere."""
        seen.append(threading.current_thread())
        return "ok"

    reg = ToolRegistry()
    reg.register(elsewhere)
    assert reg.dispatch("elsewhere", None).ok
    assert seen and seen[0] is not threading.current_thread()


def test_an_inline_tool_failing_gives_an_error_result():
    @tool(inline=True)
    def refuses() -> str:
        """Refuses."""
        raise ToolError("no such city")

    @tool(inline=True)
    def exits() -> str:
        """Exits."""
        raise SystemExit(3)

    reg = ToolRegistry()
    reg.register(refuses)
    reg.register(exits)
    refused = reg.dispatch("refuses", None)
    assert refused.status == "error" and refused.content == "Error: no such city"
    exited = reg.dispatch("exits", None)
    assert exited.status == "error" and "SystemExit" in exited.content


def test_stop_during_an_inline_call_makes_it_cancelled():
    stop = threading.Event()

    @tool(inline=True)
    def presses_stop() -> str:
        """The user presses Stop while it runs."""
        stop.set()
        return "a result that came after Stop"

    reg = ToolRegistry()
    reg.register(presses_stop)
    result = reg.dispatch("presses_stop", None, cancel=stop)
    assert result.status == "cancelled" and "a result" not in result.content


def test_an_inline_call_past_its_timeout_is_a_timeout_and_the_tool_moves_to_a_worker():
    threads: list[threading.Thread] = []
    slow = [True]

    @tool(inline=True, timeout_s=0.02)
    def dawdles() -> str:
        """Broke its promise once."""
        threads.append(threading.current_thread())
        if slow[0]:
            time.sleep(dispatch.INLINE_LIMIT_S + 0.05)
        return "late"

    reg = ToolRegistry()
    found = reg.register(dawdles)
    result = reg.dispatch("dawdles", None)
    assert result.status == "timeout" and result.content == "Error: tool 'dawdles' timed out after 0.02 s"
    assert found.inline is False  # from now on Stop and the timeout end the wait at once
    slow[0] = False
    assert reg.dispatch("dawdles", None).ok
    assert threads[0] is threading.current_thread() and threads[1] is not threading.current_thread()


def test_find_tools_is_inline():
    reg = ToolRegistry()
    for i in range(6):
        def f() -> str:
            """A tool."""
            return ""
        reg.register(Tool(f, name=f"tool_{i}"))
    offer = ToolOffer(reg, 2, [], [])
    assert offer.registry.get(offer.find_name).inline is True


def test_an_agent_turn_with_an_inline_tool_starts_no_thread(ollama_server):
    """The loop bench's claim, as behaviour: a tool turn with a quick tool hands nothing to another thread."""
    from desktop_agent.core.backends.ollama import OllamaBackend

    ran_in: list[threading.Thread] = []

    @tool(inline=True)
    def get_current_weather(location: str) -> str:
        """The weather in a city."""
        ran_in.append(threading.current_thread())
        return f"sunny in {location}"

    reg = ToolRegistry()
    reg.register(get_current_weather)
    backend = OllamaBackend(ollama_server.url, "llama3.2")
    list(Agent(backend, reg).run(Conversation(), "weather in Paris?", threading.Event()))  # warm
    with _StartCounter() as counter:
        events = list(Agent(backend, reg).run(Conversation(), "weather in Paris?", threading.Event()))
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished and finished[0].ok and isinstance(events[-1], AnswerFinished)
    assert counter.count == 0
    assert ran_in and all(t is threading.current_thread() for t in ran_in)  # in the agent's thread: no hand-off
