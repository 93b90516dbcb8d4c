"""Start-up figures: process start → the window responds, and → its first frame painted, the app ÷ a bare
QMainWindow + QTextBrowser script.

    python bench/start_first_frame.py [-n 7] [--warmup 1] [--figures]

Both run as real processes (``python -m desktop_agent`` and ``python -c <bare window>``), offscreen, with the
app's folders in a temporary ``DESKTOP_AGENT_HOME`` (default settings; the Ollama host is a closed port, so
the server check fails at once, as with Ollama not started). Each writes the moment its first frame is
painted (``desktop_agent/ui/first_frame.py``, ``DESKTOP_AGENT_BENCH_FIRST_PAINT``); the app also writes, once
its start is over (every start-up stage run, in the GUI thread and off it), the moment from which on its event
loop was never held up longer than 50 ms — from then on a key or a click is handled at once
(``desktop_agent/ui/startup.py``, ``DESKTOP_AGENT_BENCH_RESPONDS``): what the user feels as "the window
answers". The bare window responds once it is painted. The two are run alternately, A B A B …, and each
ratio is the median of the pairs' ratios. The goal is on "responds"; the first-paint figure is kept beside
it. Prints one line per figure: name, measured, limit, ratio, goal (``--figures``: the figures as JSON lines,
see ``bench/_figures.py``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _figures import Figure, emit, load
from startup import Live, figure_line, write_settings

GOAL = 1.3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("-v", "--verbose", action="store_true", help="print every run")
    parser.add_argument("--figures", action="store_true", help="print the figure as a JSON line (bench/run_all.py)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="desktop-agent-bench-") as tmp:
        home = Path(tmp)
        write_settings(home, ollama_host="http://127.0.0.1:9")
        for _ in range(args.warmup):  # the first start creates the store and the caches
            for kind in ("app", "bare"):
                Live.start(kind, home, args.python).stop()
        app, bare, app_responds = [], [], []
        for _ in range(args.runs):
            for kind, runs in (("app", app), ("bare", bare)):
                live = Live.start(kind, home, args.python, responds=True)
                try:
                    responds = live.responds_s()
                finally:
                    live.stop()
                runs.append(live.first_frame_s)
                if kind == "app":
                    app_responds.append(responds)
                if args.verbose:
                    print(f"  {kind}: painted {live.first_frame_s * 1000:.0f} ms, responds {responds * 1000:.0f} ms",
                          file=sys.stderr)
    painted = statistics.median(a / b for a, b in zip(app, bare, strict=True))
    responds = statistics.median(a / b for a, b in zip(app_responds, bare, strict=True))
    limit = f"bare QMainWindow + QTextBrowser ({statistics.median(bare) * 1000:.0f} ms)"
    rows = [("start: process start → the window responds (no hold-up > 50 ms after) ÷ a bare window", responds,
             app_responds, True),
            ("start: process start → first frame painted ÷ a bare window", painted, app, False)]
    if args.figures:
        emit([Figure(name, round(ratio, 2), "×", f"≤ {GOAL}×" if goal else "— (the goal is on responds)",
                     ratio <= GOAL if goal else None, limit=limit,
                     note=f"app {statistics.median(times) * 1000:.0f} ms; median of {args.runs} alternating pairs; "
                          f"{load()}")
              for name, ratio, times, goal in rows])
        return 0
    for name, ratio, times, goal in rows:
        print(figure_line(name, f"{statistics.median(times) * 1000:.0f} ms", limit.replace("(", "").replace(")", ""),
                          f"{ratio:.2f}×", f"goal ≤ {GOAL}×" if goal else "no goal"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
