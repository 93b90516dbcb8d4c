"""What running a tool call in the tool host adds per call, against running it in the app's process. One line.

    python bench/tool_call.py [--rounds 9] [--calls 50] [--figures]

The same small tool (a file in a temporary tools folder, loaded as the app loads tools) is dispatched through a
registry with a :class:`~desktop_agent.core.tools.host.ToolHost` and through one without, ``--calls`` calls per
round, rounds alternating between the two; the medians of the per-call times give the ratio and the cost added
per call (the host's first process is started and warmed before timing: the app starts it in the background;
the line also gives what a first call costs when it has to start the host itself).
The added cost must be small beside a model call: the line gives it as a share of 100 ms, a quick local model
call (the 135M-parameter test model answers in a few hundred ms).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _figures import Figure, emit, load  # noqa: E402

from desktop_agent.core.tools.host import ToolHost  # noqa: E402
from desktop_agent.core.tools.loader import load_dir  # noqa: E402
from desktop_agent.core.tools.registry import ToolRegistry  # noqa: E402

TOOL = '''
from desktop_agent import tool


@tool
def add(a: int, b: int) -> dict:
    """Add two numbers."""
    return {"sum": a + b, "terms": [a, b]}
'''

MODEL_CALL_MS = 100.0


def per_call_ms(registry: ToolRegistry, calls: int) -> float:
    start = time.perf_counter()
    for i in range(calls):
        result = registry.dispatch("add", {"a": i, "b": 2})
        if not result.ok:
            raise SystemExit(f"the call failed: {result.content}")
    return (time.perf_counter() - start) * 1000.0 / calls


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--figures", action="store_true", help="print the figure as a JSON line (bench/run_all.py)")
    args = parser.parse_args(argv)
    rounds = max(1, args.rounds)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "bench_tools.py").write_text(TOOL, encoding="utf-8")
        in_app = ToolRegistry()
        hosted = ToolRegistry(host=ToolHost())
        for registry in (in_app, hosted):
            problems = load_dir(registry, folder, source="bench")
            if problems:
                raise SystemExit("; ".join(problems))
        try:
            cold_ms = per_call_ms(hosted, 1)  # the first process loads (the app does this in the background)
            per_call_ms(hosted, 5)
            per_call_ms(in_app, 5)
            times: dict[str, list[float]] = {"app": [], "host": []}
            for i in range(rounds):
                order = (("app", in_app), ("host", hosted)) if i % 2 == 0 else (("host", hosted), ("app", in_app))
                for label, registry in order:
                    times[label].append(per_call_ms(registry, args.calls))
        finally:
            hosted.close()
    app_ms, host_ms = statistics.median(times["app"]), statistics.median(times["host"])
    added = host_ms - app_ms
    if args.figures:
        emit([Figure("a tool call in the tool host (a child process): time added per call", round(added, 3), "ms",
                     f"— (none; {added / MODEL_CALL_MS:.2%} of a {MODEL_CALL_MS:g} ms model call)", None,
                     limit=f"the same call in the app's process ({app_ms:.3f} ms)", ratio=round(host_ms / app_ms, 2),
                     note=f"medians of {rounds} alternating rounds of {args.calls}; a first call that has to start "
                          f"the host: {cold_ms:.0f} ms; {load()}")])
        return 0
    print(f"tool call: in the tool host {host_ms:.3f} ms, in the app {app_ms:.3f} ms per call "
          f"(ratio {host_ms / app_ms:.2f}, medians of {rounds} alternating rounds of {args.calls}); "
          f"added {added:.3f} ms = {added / MODEL_CALL_MS:.2%} of a {MODEL_CALL_MS:g} ms model call; "
          f"a first call that has to start the host: {cold_ms:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
