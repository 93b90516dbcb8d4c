"""Memory figure: resident memory (RSS) of the idle app after start, per backend, against a bare window.

    python bench/start_rss.py [-n 3] [--settle 3] [--figures]

For each backend a local server speaking its protocol (``tests/servers``: Ollama's ``/api/tags`` and
``/api/version``, OpenAI's ``/v1/models``) runs in this process; the app (``python -m desktop_agent``,
offscreen, folders in a temporary ``DESKTOP_AGENT_HOME`` whose settings point at that server) is started,
its first frame awaited, then its server check (the listing request reaching the server), then ``--settle``
seconds of idling; RSS is read from ``/proc/PID/status``. The bare QMainWindow + QTextBrowser script is
measured the same way. Medians of ``-n`` runs. Prints one line per backend: name, measured, limit, ratio,
goal (≤ 120 MB) (``--figures``: one JSON line per backend, see ``bench/_figures.py``).
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

GOAL_MB = 120.0


def _listed(server, backend: str) -> bool:
    if backend == "ollama":
        return any(path == "/api/tags" for path, _body in list(server.requests))
    return any(r.path.endswith("/models") for r in list(server.all_requests))


def idle_rss(kind: str, home: Path, python: str, settle_s: float, server=None, backend: str = "") -> float:
    live = Live.start(kind, home, python)
    try:
        deadline = time.monotonic() + 30
        while server is not None and not _listed(server, backend):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the app never listed the {backend} server's models")
            time.sleep(0.02)
        time.sleep(settle_s)
        return live.rss_mb()
    finally:
        live.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=3)
    parser.add_argument("--settle", type=float, default=3.0, help="seconds of idling before RSS is read")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--figures", action="store_true", help="print the figures as JSON lines (bench/run_all.py)")
    args = parser.parse_args(argv)
    from tests.servers.ollama import OllamaServer
    from tests.servers.openai import OpenAIServer

    with tempfile.TemporaryDirectory(prefix="desktop-agent-bench-") as tmp:
        bare_home = Path(tmp) / "bare"
        bare_home.mkdir()
        bare = statistics.median(idle_rss("bare", bare_home, args.python, args.settle) for _ in range(args.runs))
        for backend, label in (("ollama", "Ollama"), ("openai", "OpenAI-compatible")):
            server = OllamaServer(models=["llama3.2:latest"]) if backend == "ollama" else OpenAIServer()
            server.start()
            try:
                home = Path(tmp) / backend
                home.mkdir()
                if backend == "ollama":
                    write_settings(home, ollama_host=server.url)
                else:
                    write_settings(home, backend="openai", openai_base_url=server.url, openai_model="local-model")
                Live.start("app", home, args.python).stop()  # the first start creates the store
                runs = []
                for _ in range(args.runs):
                    if backend == "ollama":
                        server.requests.clear()
                    else:
                        server.all_requests.clear()
                    runs.append(idle_rss("app", home, args.python, args.settle, server, backend))
            finally:
                server.stop()
            rss = statistics.median(runs)
            if args.figures:
                emit([Figure(f"RSS idle after start ({label})", round(rss), "MB", f"≤ {GOAL_MB:.0f} MB",
                             rss <= GOAL_MB, limit=f"bare window {bare:.0f} MB", ratio=round(rss / bare, 2),
                             note=f"median of {args.runs}, {args.settle:g} s after the server check; {load()}")])
                continue
            print(figure_line(f"RSS idle after start ({label})", f"{rss:.0f} MB", f"bare window {bare:.0f} MB",
                              f"{rss / bare:.2f}×", f"goal ≤ {GOAL_MB:.0f} MB"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
