"""The tool host with real child processes: a tool that exits, crashes, spins, prints or hangs cannot take the app
down, burn a core after its timeout or write into the app's stdout; cancel kills the call; the next call works;
the host's processes end with the app."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from desktop_agent.core.agent import Agent
from desktop_agent.core.events import ToolCallFinished
from desktop_agent.core.messages import Conversation
from desktop_agent.core.tools.host import ToolHost
from desktop_agent.core.tools.registry import ToolRegistry
from tests.unit import host_tools

from .scripted import ScriptedBackend, call, calls, text

ROOT = Path(__file__).resolve().parents[2]


def wait_for(predicate, timeout_s: float = 15.0) -> bool:
    """Poll ``predicate`` until true or ``timeout_s`` passed (a bound, not a timing assertion)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def gone(pid: int) -> bool:
    """The process no longer runs (absent, or a zombie waiting to be reaped: it burns nothing)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


@pytest.fixture
def registry():
    reg = ToolRegistry(timeout_s=10, host=ToolHost())
    for name in ("add", "where", "chatty", "exit_now", "system_exit", "segfault", "spin", "pid", "polite_wait",
                 "sleepy", "background"):
        reg.register(getattr(host_tools, name), source="test")
    yield reg
    reg.close()


def worker_pid(registry: ToolRegistry) -> int:
    result = registry.dispatch("pid", {})
    assert result.ok, result.content
    return int(result.content)


def test_calls_run_in_another_process_with_validated_models_and_enums(registry):
    pid = worker_pid(registry)
    assert pid != os.getpid()
    result = registry.dispatch("where", {"place": {"city": "Paris"}, "unit": "fahrenheit"})
    assert result.ok, result.content
    assert '"model": "Place"' in result.content and '"unit_type": "Unit"' in result.content
    assert '"country": "FR"' in result.content
    # validation stays in the app: a bad argument never reaches the host
    bad = registry.dispatch("add", {"a": "one", "b": 2})
    assert bad.status == "error" and "a: Input should be a valid integer" in bad.content


def test_what_a_tool_prints_is_captured_in_the_result_not_the_apps_stdout(registry, capfd):
    result = registry.dispatch("chatty", {"text": "hello"})
    assert result.ok and result.content == "said hello"
    assert "to stdout: hello" in result.output and "to stderr: hello" in result.output
    assert "raw fd 1" in result.output
    out, err = capfd.readouterr()
    assert "hello" not in out and "raw fd 1" not in out and "to stderr" not in err


@pytest.mark.parametrize(("tool", "how"), [("exit_now", "exit code 3"), ("segfault", "killed by signal SIGSEGV")])
def test_a_crashed_host_is_an_error_result_and_the_next_call_works(registry, tool, how):
    first = worker_pid(registry)
    result = registry.dispatch(tool, {})
    assert result.status == "error"
    assert f"tool '{tool}' crashed the process it ran in ({how})" in result.content
    if tool == "exit_now":
        assert "about to exit" in result.output
    assert gone(first)
    again = registry.dispatch("add", {"a": 2, "b": 3})
    assert again.ok and again.content == "5"
    assert worker_pid(registry) != first


def test_system_exit_in_a_tool_is_an_error_and_the_host_lives_on(registry):
    first = worker_pid(registry)
    result = registry.dispatch("system_exit", {})
    assert result.status == "error" and result.content == "Error: SystemExit: 5"
    assert worker_pid(registry) == first


def test_a_spinning_tool_is_killed_at_its_timeout(registry):
    """Shared case 28-agent-tool-hangs.json, host variant: after the timeout no process burns a core."""
    registry.timeout_s = 60
    pid = worker_pid(registry)
    registry.get("spin").timeout_s = 0.5
    result = registry.dispatch("spin", {})
    assert result.status == "timeout" and "timed out after 0.5 s" in result.content
    assert "spinning" in result.output  # what it printed before it was killed is kept
    assert gone(pid)
    assert pid not in registry.host.pids()
    assert registry.dispatch("add", {"a": 1, "b": 1}).content == "2"


def test_cancel_kills_the_call(registry):
    pid = worker_pid(registry)
    cancel = threading.Event()
    box = {}
    thread = threading.Thread(target=lambda: box.update(result=registry.dispatch("sleepy", {}, cancel=cancel)))
    thread.start()
    wait_for(lambda: pid in registry.host.pids())
    time.sleep(0.2)  # the call is running in that worker
    cancel.set()
    thread.join(10)
    assert box["result"].status == "cancelled" and "cancelled by the user" in box["result"].content
    assert gone(pid)


def test_a_tool_that_honours_cancel_returns_and_keeps_its_worker(registry):
    pid = worker_pid(registry)
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    result = registry.dispatch("polite_wait", {}, cancel=cancel)
    assert result.status == "cancelled"
    assert not gone(pid) and worker_pid(registry) == pid


def test_a_tool_the_host_cannot_address_runs_in_the_app(registry):
    registry.register(host_tools.make_closure())
    result = registry.dispatch("inner", {})
    assert result.ok and result.content == f"in-process {os.getpid()}"


def test_several_calls_in_one_turn_each_get_their_result(registry):
    """Shared case 23-agent-parallel-tool-calls.json through the host, with one call crashing its process."""
    backend = ScriptedBackend(
        calls(call("add", {"a": 1, "b": 2}, "c1"), call("exit_now", {}, "c2"), call("add", {"a": 3, "b": 4}, "c3")),
        text("done"),
    )
    conv = Conversation()
    events = list(Agent(backend, registry).run(conv, "sums"))
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [(f.call_id, f.status) for f in finished] == [("c1", "ok"), ("c2", "error"), ("c3", "ok")]
    assert [f.result for f in finished][::2] == ["3", "7"]
    second = backend.requests[1].messages
    assert [m.tool_call_id for m in second if m.role == "tool"] == ["c1", "c2", "c3"]
    assert events[-1].message.content == "done"


def test_the_model_gets_cancelled_for_one_call_and_the_turn_goes_on(registry):
    backend = ScriptedBackend(
        calls(call("sleepy", {}, "slow"), call("add", {"a": 1, "b": 2}, "quick")),
        text("carried on"),
    )
    agent = Agent(backend, registry)
    pid = worker_pid(registry)
    events = []
    for event in agent.run(Conversation(), "go"):
        events.append(event)
        if type(event).__name__ == "ToolCallStarted" and event.call_id == "slow":
            threading.Timer(0.3, agent.cancel_tool_call, args=("slow",)).start()
    finished = {e.call_id: e for e in events if isinstance(e, ToolCallFinished)}
    assert finished["slow"].status == "cancelled" and "cancelled by the user" in finished["slow"].result
    assert finished["quick"].ok and finished["quick"].result == "3"
    assert events[-1].message.content == "carried on"
    assert gone(pid)
    assert not agent.cancel_tool_call("slow")  # the step is over


PARENT = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from desktop_agent.core.tools.host import ToolHost
    from desktop_agent.core.tools.registry import ToolRegistry
    from tests.unit import host_tools
    reg = ToolRegistry(host=ToolHost())
    reg.register(host_tools.pid)
    print(reg.dispatch("pid", {{}}).content, flush=True)
    if sys.argv[1] == "wait":
        time.sleep(120)
""")


def _parent(mode: str) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen([sys.executable, "-c", PARENT.format(root=str(ROOT)), mode], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    return proc, int(line)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_host_goes_away_when_the_app_is_killed():
    proc, pid = _parent("wait")
    assert not gone(pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert wait_for(lambda: gone(pid))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_host_stops_when_the_app_exits_normally():
    proc, pid = _parent("exit")
    assert proc.wait(20) == 0
    assert wait_for(lambda: gone(pid))


def test_close_stops_every_worker(registry):
    pid = worker_pid(registry)
    registry.close()
    assert gone(pid) and registry.host.pids() == []
    result = registry.dispatch("add", {"a": 1, "b": 1})
    assert result.status == "error" and "tool host" in result.content


def test_what_a_tool_left_running_ends_when_the_host_closes(registry):
    # found in session 3: a tool that started a background process left it running after the app quit
    result = registry.dispatch("background", {})
    assert result.ok, result.content
    child = int(result.content)
    assert not gone(child)
    registry.close()
    assert wait_for(lambda: gone(child))


def test_a_changed_tool_file_is_loaded_again_by_the_host(tmp_path):
    """Reload tools in the app: the host's process runs the new code, not the module it loaded first."""
    from desktop_agent.core.tools.loader import load_dir

    folder = tmp_path / "tools"
    folder.mkdir()
    source = folder / "versioned.py"
    template = ("from desktop_agent import tool\n\n@tool\ndef version() -> str:\n"
                "    \"\"\"Say which.\"\"\"\n    return {!r}\n")
    source.write_text(template.format("one"), encoding="utf-8")
    host = ToolHost()
    try:
        first = ToolRegistry(host=host)
        assert load_dir(first, folder, source="test") == []
        assert first.dispatch("version", {}).content == "one"
        source.write_text(template.format("two"), encoding="utf-8")
        os.utime(source, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
        second = ToolRegistry(host=host)
        assert load_dir(second, folder, source="test") == []
        assert second.dispatch("version", {}).content == "two"
    finally:
        host.close()


def test_the_app_itself_can_be_the_host(monkeypatch):
    """A frozen build has no ``python -m``: it starts itself with ``--tool-host`` (here through ``python -m
    desktop_agent``, the same entry point)."""
    from desktop_agent.core.tools import host as host_module

    monkeypatch.setattr(host_module, "host_command", lambda: [sys.executable, "-m", "desktop_agent", "--tool-host"])
    reg = ToolRegistry(host=ToolHost())
    reg.register(host_tools.chatty)
    try:
        result = reg.dispatch("chatty", {"text": "frozen"})
        assert result.ok and result.content == "said frozen" and "to stdout: frozen" in result.output
    finally:
        reg.close()


def test_a_tool_that_prints_without_end_is_stopped(registry, monkeypatch):
    from desktop_agent.core.tools import host as host_module

    monkeypatch.setattr(host_module, "OUTPUT_LIMIT", 2 * 1024 * 1024)
    monkeypatch.setattr(host_module, "CAPTURE_RESET", 64 * 1024)
    registry.register(host_tools.flood)
    pid = worker_pid(registry)
    result = registry.dispatch("flood", {})
    assert result.status == "error" and "printed more than" in result.content
    assert len(result.output) <= host_module.OUTPUT_CAP + 10 and result.output.startswith("[…]")
    assert gone(pid)
    # a later call's output starts afresh (the capture file of a worker is emptied between calls)
    chatty = registry.dispatch("chatty", {"text": "after"})
    assert chatty.output.startswith("to stdout: after")


def test_a_tool_package_with_relative_imports_runs_in_the_host(tmp_path):
    from desktop_agent.core.tools.loader import load_dir

    package = tmp_path / "tools" / "mypack"
    package.mkdir(parents=True)
    (package / "helpers.py").write_text("def twice(x):\n    return 2 * x\n", encoding="utf-8")
    (package / "impl.py").write_text(
        "import os\nfrom desktop_agent import tool\nfrom .helpers import twice\n\n@tool\n"
        "def doubled(x: int) -> dict:\n    \"\"\"Double x.\"\"\"\n    return {'value': twice(x), 'pid': os.getpid()}\n",
        encoding="utf-8")
    (package / "__init__.py").write_text("from .impl import doubled\n", encoding="utf-8")
    reg = ToolRegistry(host=ToolHost())
    try:
        assert load_dir(reg, tmp_path / "tools", source="test") == []
        result = reg.dispatch("doubled", {"x": 21})
        assert result.ok, result.content
        assert '"value": 42' in result.content and f'"pid": {os.getpid()}' not in result.content
    finally:
        reg.close()
