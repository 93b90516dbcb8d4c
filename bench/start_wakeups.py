"""Idle figure: how often the idle app's main thread wakes up, against a bare window.

    python bench/start_wakeups.py [-n 3] [--seconds 10] [--settle 12] [--figures]

The app (``python -m desktop_agent``, offscreen, folders in a temporary ``DESKTOP_AGENT_HOME``; a local
Ollama protocol server from ``tests/servers`` answers its server check) is started, its first frame
awaited, then ``--settle`` seconds (the text cursor blinks for 10 s after the last input, then stays
drawn); then the main thread's voluntary context switches
(``/proc/PID/task/PID/status``: each time it blocked in the event loop and woke) are counted over
``--seconds`` of idling. The bare QMainWindow + QTextBrowser script is measured the same way. Medians of
``-n`` runs. Prints one line: name, measured, limit, ratio, goal (≤ 1 wakeup/s) (``--figures``: the figure as a
JSON line, see ``bench/_figures.py``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from _figures import Figure, emit, load  # noqa: E402
from startup import Live, figure_line, write_settings  # noqa: E402

GOAL_PER_S = 1.0


def wakeups_per_s(kind: str, home: Path, python: str, settle_s: float, seconds: float) -> float:
    live = Live.start(kind, home, python)
    try:
        time.sleep(settle_s)
        before, t0 = live.main_thread_switches(), time.monotonic()
        time.sleep(seconds)
        after, t1 = live.main_thread_switches(), time.monotonic()
        return (after - before) / (t1 - t0)
    finally:
        live.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0, help="idle seconds counted")
    parser.add_argument("--settle", type=float, default=12.0,
                        help="seconds after the first frame, not counted (the cursor blinks for the first 10 s)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--figures", action="store_true", help="print the figure as a JSON line (bench/run_all.py)")
    args = parser.parse_args(argv)
    from tests.servers.ollama import OllamaServer

    server = OllamaServer(models=["llama3.2:latest"]).start()
    try:
        with tempfile.TemporaryDirectory(prefix="desktop-agent-bench-") as tmp:
            home = Path(tmp)
            write_settings(home, ollama_host=server.url)
            Live.start("app", home, args.python).stop()  # the first start creates the store
            app, bare = [], []
            for _ in range(args.runs):
                app.append(wakeups_per_s("app", home, args.python, args.settle, args.seconds))
                bare.append(wakeups_per_s("bare", home, args.python, args.settle, args.seconds))
    finally:
        server.stop()
    a, b = statistics.median(app), statistics.median(bare)
    if args.figures:
        emit([Figure("idle wakeups of the main thread", round(a, 2), "/s", f"≤ {GOAL_PER_S:g}/s", a <= GOAL_PER_S,
                     limit=f"bare window {b:.1f}/s", ratio=round(a / b, 2) if b else None,
                     note=f"median of {args.runs}, {args.seconds:g} s counted each; {load()}")])
        return 0
    print(figure_line("idle wakeups of the main thread", f"{a:.1f}/s", f"bare window {b:.1f}/s",
                      f"{a / b:.1f}×" if b else "n/a (bare 0)", f"goal ≤ {GOAL_PER_S:g}/s"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
