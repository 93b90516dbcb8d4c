"""Start-up figure: process start → first frame painted, the app ÷ a bare QMainWindow + QTextBrowser script.

    python bench/start_first_frame.py [-n 7] [--warmup 1] [--figures]

Both run as real processes (``python -m desktop_agent`` and ``python -c <bare window>``), offscreen, with the
app's folders in a temporary ``DESKTOP_AGENT_HOME`` (default settings; the Ollama host is a closed port, so
the server check fails at once, as with Ollama not started). Each writes the moment its first frame is
painted (``desktop_agent/ui/first_frame.py``, ``DESKTOP_AGENT_BENCH_FIRST_PAINT``); the two are run
alternately, A B A B …, and the ratio is the median of the pairs' ratios. Prints one line: name, measured,
limit, ratio, goal (``--figures``: the figure as a JSON line, see ``bench/_figures.py``).
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
        app, bare = [], []
        for _ in range(args.runs):
            for kind, runs in (("app", app), ("bare", bare)):
                live = Live.start(kind, home, args.python)
                live.stop()
                runs.append(live.first_frame_s)
                if args.verbose:
                    print(f"  {kind}: {live.first_frame_s * 1000:.0f} ms", file=sys.stderr)
    ratio = statistics.median(a / b for a, b in zip(app, bare, strict=True))
    if args.figures:
        emit([Figure("start: process start → first frame painted ÷ a bare window", round(ratio, 2), "×",
                     f"≤ {GOAL}×", ratio <= GOAL,
                     limit=f"bare QMainWindow + QTextBrowser ({statistics.median(bare) * 1000:.0f} ms)",
                     note=f"app {statistics.median(app) * 1000:.0f} ms; median of {args.runs} alternating pairs; "
                          f"{load()}")])
        return 0
    print(figure_line("start: process start → first frame painted",
                      f"{statistics.median(app) * 1000:.0f} ms",
                      f"bare QMainWindow + QTextBrowser {statistics.median(bare) * 1000:.0f} ms",
                      f"{ratio:.2f}×", f"goal ≤ {GOAL}×"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
