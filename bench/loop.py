"""Benchmark of the agent loop's own cost (issue 14, "Loop"). Prints one line per backend.

    python bench/loop.py [--runs 31] [--steps 10] [--backend both] [--figures]

A 10-step tool turn (9 model calls asking for a tool, then the answer) against an instant local server
speaking the exact wire protocol (the tests' OpenAI and Ollama servers, in a child process so that they
do not compete for this process's GIL; their fake model asks for ``step(n)`` until n = 8), run by
our ``Agent`` and by a plain loop on the official SDK doing the same requests and tool calls; the medians of
``--runs`` paired ratios (rounds in a rotating order), and the threads our turn starts (the servers' own
threads not counted). ``step`` is a quick function declared ``inline`` (called in the agent's thread, as the
SDK loop calls it); the same turn with the tool handed to a worker thread is measured too.
Goal: our Agent / the SDK loop <= 1.05, no thread started per turn.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _figures import Figure, emit, load, machine  # noqa: E402

from desktop_agent.core.agent import Agent  # noqa: E402
from desktop_agent.core.backends.ollama import OllamaBackend  # noqa: E402
from desktop_agent.core.backends.openai import OpenAIBackend  # noqa: E402
from desktop_agent.core.messages import Conversation  # noqa: E402
from desktop_agent.core.tools.definition import Tool  # noqa: E402
from desktop_agent.core.tools.registry import ToolRegistry  # noqa: E402
from tests.servers import ollama as ollama_server  # noqa: E402
from tests.servers import openai as openai_server  # noqa: E402
from tests.servers.ollama import OllamaServer  # noqa: E402
from tests.servers.openai import OpenAIServer  # noqa: E402

# "instant": the servers write headers and chunks separately; with Nagle's algorithm each request would
# wait for the client's delayed ACK (~40 ms) and hide the loop's own cost
ollama_server._Handler.disable_nagle_algorithm = True
openai_server._Handler.disable_nagle_algorithm = True

GOAL = 1.05
MODEL = "local-model"


def step(n: int) -> str:
    """Step ``n`` of the benchmark turn."""
    return f"step {n} done"


TOOL_SCHEMA = {
    "type": "function",
    "function": {"name": "step", "description": "Step n of the benchmark turn.",
                 "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
}


# ---- the server (a child process) -------------------------------------------------------------------------

def serve(kind: str, steps: int) -> None:
    """The child: a server whose fake model asks for ``step(n)`` until the turn has ``steps - 1`` tool
    results, then answers. Prints its URL, serves until stdin closes."""
    from tests.servers import fake_model

    def bench_plan(messages: list[dict[str, Any]], tool_names: list[str], forced: str | None = None) -> Any:
        done = sum(1 for m in messages if m.get("role") == "tool")
        if done < steps - 1:
            return fake_model.Plan(tool_calls=[("step", {"n": done})])
        return fake_model.Plan(chunks=["All ", "steps ", "done."])

    fake_model.plan = bench_plan  # type: ignore[assignment]
    openai_server.plan = bench_plan  # type: ignore[assignment]
    server: Any = OpenAIServer(strict=False) if kind == "openai" else OllamaServer(models=[MODEL])
    server.start()
    print(server.url, flush=True)
    sys.stdin.read()
    server.stop()


class Child:
    """The server process, started and stopped by the parent."""

    def __init__(self, kind: str, steps: int) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--steps", str(steps)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        if not self.url:
            raise SystemExit("the bench server did not start")

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(10)


# ---- the two loops ------------------------------------------------------------------------------------------

# built once, as the app's assembly keeps them between turns: ``step`` is a quick function that never blocks,
# declared ``inline`` (called in the agent's thread, as the SDK loop calls it); the second registry hands
# each call to a worker thread, as for a tool not so declared
REGISTRY = ToolRegistry()
REGISTRY.register(Tool(step, inline=True))
WORKER_REGISTRY = ToolRegistry()
WORKER_REGISTRY.register(Tool(step))


def agent_turn(backend: Any, steps: int, registry: ToolRegistry = REGISTRY) -> str:
    agent = Agent(backend, registry, max_steps=steps + 1, system_prompt="bench")
    events = list(agent.run(Conversation(), "go", threading.Event()))
    return type(events[-1]).__name__


def sdk_openai_turn(client: Any, steps: int) -> str:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "bench"}, {"role": "user", "content": "go"}]
    for _ in range(steps + 1):
        text, calls = "", {}
        for ev in client.chat.completions.create(model=MODEL, messages=messages, tools=[TOOL_SCHEMA],
                                                 tool_choice="auto", temperature=0.0, stream=True):
            delta = ev.choices[0].delta if ev.choices else None
            if delta is None:
                continue
            text += delta.content or ""
            for tc in delta.tool_calls or []:
                c = calls.setdefault(tc.index, {"id": "", "name": "", "arguments": ""})
                c["id"] = tc.id or c["id"]
                if tc.function:
                    c["name"] = tc.function.name or c["name"]
                    c["arguments"] += tc.function.arguments or ""
        if not calls:
            return "AnswerFinished"
        messages.append({"role": "assistant", "content": text, "tool_calls": [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls.values()]})
        for c in calls.values():
            messages.append({"role": "tool", "tool_call_id": c["id"],
                             "content": json.dumps(step(**json.loads(c["arguments"])))})
    return "MaxSteps"


def sdk_ollama_turn(client: Any, steps: int) -> str:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "bench"}, {"role": "user", "content": "go"}]
    for _ in range(steps + 1):
        text, calls = "", []
        for part in client.chat(model=MODEL, messages=messages, tools=[TOOL_SCHEMA], stream=True,
                                options={"temperature": 0.0}, keep_alive=-1):
            text += part.message.content or ""
            calls.extend(part.message.tool_calls or [])
        if not calls:
            return "AnswerFinished"
        messages.append({"role": "assistant", "content": text, "tool_calls": [
            {"function": {"name": c.function.name, "arguments": dict(c.function.arguments)}} for c in calls]})
        for c in calls:
            messages.append({"role": "tool", "content": json.dumps(step(**c.function.arguments)),
                             "tool_name": c.function.name})
    return "MaxSteps"


# ---- measuring ----------------------------------------------------------------------------------------------

class ThreadCounter:
    """Counts the threads started while a turn runs, from the measuring thread."""

    def __init__(self) -> None:
        self.count = 0
        self._me = threading.current_thread()
        self._start = threading.Thread.start

    def __enter__(self) -> ThreadCounter:
        counter = self

        def start(thread: threading.Thread) -> None:
            if threading.current_thread() is counter._me:
                counter.count += 1
            counter._start(thread)

        threading.Thread.start = start  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: Any) -> None:
        threading.Thread.start = self._start  # type: ignore[method-assign]


#: the calling thread's CPU time of each timed turn, by the turn's name (:func:`timed`)
CPU: dict[str, list[float]] = {}


def timed(fn: Callable[[], str], name: str = "") -> float:
    start, cpu = time.perf_counter(), time.thread_time()
    outcome = fn()
    elapsed = time.perf_counter() - start
    CPU.setdefault(name, []).append(time.thread_time() - cpu)
    if outcome != "AnswerFinished":
        raise SystemExit(f"the turn ended with {outcome}")
    return elapsed


@dataclass
class Result:
    kind: str
    steps: int
    runs: int
    ours_ms: float
    sdk_ms: float
    ratio: float
    worker_ratio: float  # the same turn with the tool handed to a worker thread (not declared inline)
    threads: int
    cpu_ratio: float = 0.0  # the turn's own thread's CPU time ÷ the SDK loop's (less noisy than wall time)

    def line(self) -> str:
        return (f"loop {self.kind:6s}: {self.steps}-step tool turn, our Agent {self.ours_ms:.1f} ms / SDK loop "
                f"{self.sdk_ms:.1f} ms = {self.ratio:.2f}x (goal <= {GOAL}x, "
                f"{'met' if self.ratio <= GOAL else 'NOT met'}); with the tool on a worker thread "
                f"{self.worker_ratio:.2f}x; CPU of the turn's thread {self.cpu_ratio:.2f}x the SDK loop's; "
                f"{self.threads} threads started per turn "
                f"(medians of {self.runs} alternating pairs)")


def bench(kind: str, runs: int, steps: int) -> Result:
    import httpx
    import ollama
    import openai

    server = Child(kind, steps)
    try:
        if kind == "openai":
            ours: Any = OpenAIBackend(server.url, MODEL, [], needs_key=False, retries_per_key=0)
            sdk: Any = openai.OpenAI(base_url=server.url, api_key="not-needed", max_retries=0)
            sdk_turn: Callable[[Any, int], str] = sdk_openai_turn
        else:
            ours = OllamaBackend(server.url, MODEL, timeout_s=60)
            sdk = ollama.Client(host=server.url, timeout=httpx.Timeout(60, connect=5))
            sdk_turn = sdk_ollama_turn
        times: dict[str, list[float]] = {"ours": [], "worker": [], "sdk": []}
        turns: dict[str, Callable[[], str]] = {
            "ours": lambda: agent_turn(ours, steps), "worker": lambda: agent_turn(ours, steps, WORKER_REGISTRY),
            "sdk": lambda: sdk_turn(sdk, steps)}
        for _ in range(2):  # warm all (imports, connections, the worker thread)
            for fn in turns.values():
                timed(fn)
        order = list(turns)
        CPU.clear()
        for i in range(runs):  # each round runs all three, in a rotating order: a load change hits them alike
            for name in order[i % 3:] + order[:i % 3]:
                times[name].append(timed(turns[name], name))
        with ThreadCounter() as counter:
            agent_turn(ours, steps)
    finally:
        server.stop()

    def paired(name: str) -> float:
        return statistics.median(x / y for x, y in zip(times[name], times["sdk"], strict=True))

    cpu = statistics.median(x / y for x, y in zip(CPU["ours"], CPU["sdk"], strict=True))
    return Result(kind, steps, runs, statistics.median(times["ours"]) * 1000, statistics.median(times["sdk"]) * 1000,
                  paired("ours"), paired("worker"), counter.count, cpu)


LABEL = {"openai": "OpenAI-compatible", "ollama": "Ollama"}


def figures(results: list[Result]) -> list[Figure]:
    out = []
    for r in results:
        note = (f"ours {r.ours_ms:.1f} ms; median of {r.runs} paired ratios; CPU of the turn's thread "
                f"{r.cpu_ratio:.2f}× the SDK loop's; the tool declared inline (quick: called in the agent's thread, "
                f"as the SDK loop calls it); {load()}")
        out.append(Figure(f"a {r.steps}-step tool turn against an instant local server ({LABEL[r.kind]}): "
                          "our Agent ÷ a plain loop on the SDK", round(r.ratio, 3), "×", f"≤ {GOAL}×",
                          r.ratio <= GOAL, limit=f"the SDK loop ({r.sdk_ms:.1f} ms)", note=note))
    for r in results:
        out.append(Figure(f"the same turn ({LABEL[r.kind]}) with the tool handed to a worker thread (a tool not "
                          "declared inline)", round(r.worker_ratio, 3), "×", "— (none: shows what the hand-off costs)",
                          None, limit="the SDK loop", note=f"median of {r.runs} paired ratios"))
    threads = max(r.threads for r in results)
    out.append(Figure(f"threads started per {results[0].steps}-step tool turn", threads, "", "0", threads == 0,
                      note=", ".join(f"{LABEL[r.kind]} {r.threads}" for r in results)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=31, help="rounds (each: our Agent, the same with a worker, "
                        "the SDK loop)")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--backend", choices=["openai", "ollama", "both"], default="both")
    parser.add_argument("--figures", action="store_true", help="print the figures as JSON lines (bench/run_all.py)")
    parser.add_argument("--serve", choices=["openai", "ollama"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.steps)
        return 0
    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    results = []
    for kind in (["openai", "ollama"] if args.backend == "both" else [args.backend]):
        results.append(bench(kind, max(1, args.runs), args.steps))
        if not args.figures:
            print(results[-1].line(), flush=True)
    if args.figures:
        emit(figures(results))
    else:
        print(f"machine: {machine()}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
