"""Start-up benchmark: whole-process runs, several repetitions, min / median / max. Prints figures and ratios.

    python bench/startup.py [-n 7] [--warmup 1] [--importtime] [--no-frozen] [--figures]

Measures, each in a fresh process of this Python, with ``DESKTOP_AGENT_HOME`` in a temporary folder and
``QT_QPA_PLATFORM=offscreen``:

- ``python -c pass``: the interpreter alone, for reference;
- ``python -m desktop_agent --version`` and ``python -m desktop_agent tools`` (wall time of the process);
- **window start-up**: from just before the process is started until the main window is shown, i.e. the
  first event-loop turn after ``show()``. The window module has no timing hook, so this file is its own
  driver (``--child window``): it creates the ``QApplication``, queues a zero timer, then runs the real
  entry point ``desktop_agent.app.main([])`` (argument parsing, logging set-up, theme, settings,
  ``MainWindow``, ``show()``, ``app.exec()``). The timer fires on the first loop turn after ``show()``;
  the child records the time (``time.monotonic()``, one clock for every process on Linux), grabs the
  window once (a full paint: "painted"), notes which heavy modules are already imported, prints one JSON
  line and leaves with ``os._exit(0)`` — ``MainWindow``'s deferred start-up work (markdown, keyring,
  store, server check) is queued after the timer and never runs, as it would run after the window shows;
- **bare Qt window** (``--child bare``): the same measurement for a plain ``QWidget`` of the same size;
- ratios window ÷ bare, pair by pair (the two are run alternately, A B A B …), median of the pairs;
- which heavy modules (openai, ollama, keyring, markdown_it, pygments) are imported when the window
  first shows — each should be absent: they are imported after the window is up;
- the PyInstaller build's ``--version`` and ``tools`` when ``packaging/dist/desktop-agent`` exists.

The section "the app and a bare window as they really run" holds what ``bench/start_first_frame.py``,
``start_rss.py`` and ``start_wakeups.py`` share: they run ``python -m desktop_agent`` itself, which notes its
first frame painted (``DESKTOP_AGENT_BENCH_FIRST_PAINT``), against a bare QMainWindow + QTextBrowser.

``--importtime`` adds one window run under ``python -X importtime`` and prints the slowest imports
(cumulative) before the window shows. ``--figures`` also prints the ratios and the heavy modules as JSON lines
(``bench/_figures.py``; the start-up goal itself is on ``bench/start_first_frame.py``'s "responds" figure).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FROZEN = ROOT / "packaging" / "dist" / "desktop-agent" / "desktop-agent"
HEAVY = ("openai", "ollama", "keyring", "markdown_it", "pygments")
NOTABLE = ("pydantic", "httpx", "httpx2", "sqlite3", "platformdirs", "desktop_agent.core.store",
           "desktop_agent.core.secrets", "desktop_agent.ui.markdown", "desktop_agent.ui.settings.dialog",
           "desktop_agent.ui.history")
WINDOW_SIZE = (1180, 760)  # MainWindow's initial size


# ---- the child processes -----------------------------------------------------------------------------


def _report_and_exit(window, kind: str) -> None:
    shown = time.monotonic()
    visible = bool(window is not None and window.isVisible())
    pixmap = window.grab() if visible else None
    painted = time.monotonic()
    loaded = sorted(m for m in HEAVY if m in sys.modules)
    notable = sorted(m for m in NOTABLE if m in sys.modules)
    print(json.dumps({
        "kind": kind, "shown": shown, "painted": painted, "visible": visible,
        "size": [pixmap.width(), pixmap.height()] if pixmap is not None else None,
        "heavy": loaded, "notable": notable, "modules": len(sys.modules),
    }), flush=True)
    sys.stderr.flush()
    os._exit(0 if visible else 3)


def child_window() -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication([sys.argv[0]])  # desktop_agent's run_gui() reuses it
    tries = [0]

    def first_turn() -> None:
        windows = [w for w in app.topLevelWidgets() if isinstance(w, QMainWindow) and w.isVisible()]
        if not windows and tries[0] < 1000:  # a processEvents() before show() ran us early: wait for it
            tries[0] += 1
            QTimer.singleShot(0, first_turn)
            return
        _report_and_exit(windows[0] if windows else None, "window")

    QTimer.singleShot(0, first_turn)
    from desktop_agent.app import main

    main([])
    _report_and_exit(None, "window")  # the loop ended without a window


def child_bare() -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QWidget

    app = QApplication([sys.argv[0]])
    window = QWidget()
    window.setWindowTitle("bare")
    window.resize(*WINDOW_SIZE)
    window.show()
    QTimer.singleShot(0, lambda: _report_and_exit(window, "bare"))
    app.exec()


# ---- the app and a bare window as they really run (shared by bench/start_*.py) --------------------------

#: the first-frame hook, loaded by its path in the bare script so both sides are timed by the same code
FIRST_FRAME = ROOT / "desktop_agent" / "ui" / "first_frame.py"
BENCH_ENV = "DESKTOP_AGENT_BENCH_FIRST_PAINT"
#: the app writes the moment its start is over and its event loop free (desktop_agent/ui/startup.py)
RESPONDS_ENV = "DESKTOP_AGENT_BENCH_RESPONDS"
#: the limit the start figures are compared with: a bare QMainWindow with a QTextBrowser, of the app's size
BARE_WINDOW = f"""
import importlib.util, sys
from PySide6.QtWidgets import QApplication, QMainWindow, QTextBrowser
spec = importlib.util.spec_from_file_location("first_frame", {str(FIRST_FRAME)!r})
first_frame = importlib.util.module_from_spec(spec)
spec.loader.exec_module(first_frame)
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.setWindowTitle("bare")
window.setCentralWidget(QTextBrowser())
window.resize({WINDOW_SIZE[0]}, {WINDOW_SIZE[1]})
window.show()
first_frame.after_first_frame(window, lambda: None)
sys.exit(app.exec())
"""


def bench_env(home: Path) -> dict[str, str]:
    """The environment of a measured process: the app's folders under ``home``, offscreen, nothing of ours
    from the caller's environment (the server and backend come from ``home``'s settings file)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DESKTOP_AGENT_", "OLLAMA_", "OPENAI_", "QT_", "PYTHONPROFILE"))}
    env.update(DESKTOP_AGENT_HOME=str(home), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: byte code cached (the warm-up run writes it)
    return env


def write_settings(home: Path, **fields: Any) -> None:
    """The settings file under ``home`` (``Settings(**fields)``, e.g. ``backend="openai"``)."""
    sys.path.insert(0, str(ROOT))
    from desktop_agent.core import paths
    from desktop_agent.core.settings import Settings

    paths.set_home(home)
    try:
        Settings(**fields).save()
    finally:
        paths.set_home(None)


def proc_status(pid: int, tid: int | None = None) -> dict[str, str]:
    """``/proc/PID/status`` (or a thread's, ``/proc/PID/task/TID/status``) as a dict."""
    path = f"/proc/{pid}/status" if tid is None else f"/proc/{pid}/task/{tid}/status"
    with open(path, encoding="ascii") as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f if ":\t" in line)


class Live:
    """A running app (``python -m desktop_agent``) or bare window, started by :meth:`start`, which returns
    once its first frame is painted (the moment the first-frame hook wrote to a file)."""

    def __init__(self, proc: subprocess.Popen, started: float, painted: float, errors: Any,
                 responds_mark: Path | None = None):
        self.proc, self.started, self.painted, self.errors = proc, started, painted, errors
        self._responds_mark = responds_mark

    def responds_s(self, timeout_s: float = 60) -> float:
        """Seconds from just before the process was started until the window responds: the moment from which
        on its event loop was never held up over 50 ms, as the app notes it once its start is over (a key or a
        click is handled at once from then on). A bare window responds once it is painted; an app started
        without ``responds=True`` too."""
        mark = self._responds_mark
        if mark is None:
            return self.first_frame_s
        deadline = time.monotonic() + timeout_s
        while not mark.exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the app never said it responds (exit {self.proc.poll()})")
            time.sleep(0.002)
        moment = float(mark.read_text())
        mark.unlink()
        return moment - self.started

    @property
    def first_frame_s(self) -> float:
        """Seconds from just before the process was started to its first frame painted."""
        return self.painted - self.started

    @classmethod
    def start(cls, kind: str, home: Path, python: str = sys.executable, timeout_s: float = 60, *,
              responds: bool = False) -> Live:
        """``responds``: the app also notes when it responds (:meth:`responds_s`; a 10 ms timer watches its event
        loop until its start is over)."""
        mark = home / f"first-frame-{kind}-{os.getpid()}"
        mark.unlink(missing_ok=True)
        env = bench_env(home)
        env[BENCH_ENV] = str(mark)
        responds_mark = home / f"responds-{kind}-{os.getpid()}" if kind == "app" and responds else None
        if responds_mark is not None:
            responds_mark.unlink(missing_ok=True)
            env[RESPONDS_ENV] = str(responds_mark)
        argv = [python, "-m", "desktop_agent"] if kind == "app" else [python, "-c", BARE_WINDOW]
        errors = tempfile.TemporaryFile()  # noqa: SIM115 - kept open while the process runs
        started = time.monotonic()
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=errors)
        deadline = started + timeout_s
        while not mark.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                errors.seek(0)
                raise RuntimeError(f"{kind} did not paint (exit {proc.returncode}):\n"
                                   f"{errors.read().decode(errors='replace')[-3000:]}")
            time.sleep(0.002)
        painted = float(mark.read_text())
        mark.unlink()
        return cls(proc, started, painted, errors, responds_mark)

    def rss_mb(self) -> float:
        """Resident memory now, in MB (10^6 bytes, as ``ps`` and the issue count)."""
        return int(proc_status(self.proc.pid)["VmRSS"].split()[0]) * 1024 / 1e6

    def main_thread_switches(self) -> int:
        """Times the main thread has blocked and woken (voluntary context switches) so far."""
        return int(proc_status(self.proc.pid, self.proc.pid)["voluntary_ctxt_switches"])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.errors.close()


def figure_line(name: str, measured: str, limit: str, ratio: str, goal: str) -> str:
    """The one line a start_*.py script prints: name, measured, limit, ratio, goal (no comma inside one)."""
    return ", ".join(part.replace(",", ";") for part in (name, measured, limit, ratio, goal))


# ---- the parent ------------------------------------------------------------------------------------------


class Runner:
    def __init__(self, python: str, home: Path):
        self.python = python
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("DESKTOP_AGENT_", "OLLAMA_", "OPENAI_", "QT_", "PYTHONPROFILE"))}
        self.env.update(DESKTOP_AGENT_HOME=str(home), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
                        OLLAMA_HOST="http://127.0.0.1:9", PYTHONDONTWRITEBYTECODE="")
        self.env.pop("PYTHONDONTWRITEBYTECODE")

    def wall(self, argv: list[str]) -> float:
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=ROOT, env=self.env, capture_output=True, timeout=120)
        took = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stderr.decode(errors='replace')}")
        return took

    def child(self, kind: str, *python_flags: str) -> dict:
        argv = [self.python, *python_flags, str(Path(__file__).resolve()), "--child", kind]
        start = time.monotonic()
        proc = subprocess.run(argv, cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=120)
        end = time.monotonic()
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
        if proc.returncode != 0 or not lines:
            raise RuntimeError(f"--child {kind} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr[-3000:]}")
        data = json.loads(lines[-1])
        data.update(shown_s=data["shown"] - start, painted_s=data["painted"] - start, wall_s=end - start,
                    stderr=proc.stderr)
        return data


def stats(values: list[float]) -> tuple[float, float, float]:
    return min(values), statistics.median(values), max(values)


def row(label: str, values: list[float], unit: str = "s") -> str:
    lo, med, hi = stats(values)
    if unit == "s":
        return f"  {label:<46} min {lo * 1000:7.0f} ms   median {med * 1000:7.0f} ms   max {hi * 1000:7.0f} ms"
    return f"  {label:<46} min {lo:7.2f}      median {med:7.2f}      max {hi:7.2f}"


def importtime_report(runner: Runner, top: int = 12) -> list[str]:
    """One window run under ``-X importtime``: import time before the window shows, summed (self time) by
    top-level package, largest first."""
    argv = [runner.python, "-X", "importtime", str(Path(__file__).resolve()), "--child", "window"]
    proc = subprocess.run(argv, cwd=ROOT, env=runner.env, capture_output=True, text=True, timeout=120)
    by_package: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, _cumulative_us, raw_name = line.split(":", 1)[1].split("|")
        package = raw_name.strip().split(".")[0]
        by_package[package] = by_package.get(package, 0) + int(self_us)
    total = sum(by_package.values())
    ranked = sorted(by_package.items(), key=lambda kv: kv[1], reverse=True)[:top]
    return [f"  {us / 1000:8.1f} ms  {name}" for name, us in ranked] + [f"  {total / 1000:8.1f} ms  (all imports)"]


def emit_figures(results: dict[str, list[float]], shown: list[float], painted: list[float], heavy: list[str],
                 runs: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _figures import Figure, emit, load

    def ms(label: str) -> str:
        return f"{statistics.median(results[label]) * 1000:.0f} ms"

    no_goal = "— (the goal is on the window responding: start_first_frame.py)"
    note = f"median of {runs} alternating pairs; {load()}"
    version = statistics.median(results["python -m desktop_agent --version"])
    bare_python = statistics.median(results["python -c pass"])
    emit([
        Figure("start (own driver): process start → window shown ÷ a bare QWidget", round(statistics.median(shown), 2),
               "×", no_goal, None, limit=f"bare QWidget ({ms('bare QWidget: process start → shown')})",
               note=f"window {ms('window: process start → shown')}; {note}"),
        Figure("start (own driver): process start → window painted ÷ a bare QWidget",
               round(statistics.median(painted), 2), "×", no_goal, None,
               limit=f"bare QWidget ({ms('bare QWidget: process start → painted (grab)')})",
               note=f"window {ms('window: process start → painted (grab)')}; {note}"),
        Figure("python -m desktop_agent --version ÷ python -c pass", round(version / bare_python, 2), "×", "—", None,
               limit=f"python -c pass ({bare_python * 1000:.0f} ms)", note=f"medians of {runs}"),
        Figure("heavy modules imported when the window first shows", len(heavy), "", "0", not heavy,
               note=(", ".join(heavy) or "none") + f" (checked: {', '.join(HEAVY)})"),
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="desktop-agent start-up benchmark (whole processes).")
    parser.add_argument("-n", "--runs", type=int, default=7, help="counted runs of each measurement")
    parser.add_argument("--warmup", type=int, default=1, help="runs not counted, first")
    parser.add_argument("--python", default=sys.executable, help="interpreter with the app's dependencies")
    parser.add_argument("--importtime", action="store_true", help="also show the slowest imports before show()")
    parser.add_argument("--no-frozen", action="store_true", help="skip the PyInstaller build even if present")
    parser.add_argument("--json", type=Path, help="also write every figure to this file")
    parser.add_argument("--figures", action="store_true", help="also print the figures as JSON lines (run_all.py)")
    parser.add_argument("--child", choices=["window", "bare"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "window":
        child_window()
        return 0
    if args.child == "bare":
        child_bare()
        return 0

    home = Path(tempfile.mkdtemp(prefix="desktop-agent-bench-"))
    runner = Runner(args.python, home)
    py = [args.python]
    results: dict[str, list[float]] = {}
    print(f"desktop-agent start-up, {args.runs} runs after {args.warmup} warm-up, {sys.platform}, "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, QT_QPA_PLATFORM=offscreen")

    commands = {
        "python -c pass": [*py, "-c", "pass"],
        "python -m desktop_agent --version": [*py, "-m", "desktop_agent", "--version"],
        "python -m desktop_agent tools": [*py, "-m", "desktop_agent", "tools"],
    }
    if FROZEN.is_file() and not args.no_frozen:
        commands["frozen: desktop-agent --version"] = [str(FROZEN), "--version"]
        commands["frozen: desktop-agent tools"] = [str(FROZEN), "tools"]
    for label, command in commands.items():
        for _ in range(args.warmup):
            runner.wall(command)
        results[label] = [runner.wall(command) for _ in range(args.runs)]

    for _ in range(args.warmup):
        runner.child("window")
        runner.child("bare")
    window_runs, bare_runs = [], []
    for _ in range(args.runs):  # alternate, so a drift in machine speed hits both alike
        window_runs.append(runner.child("window"))
        bare_runs.append(runner.child("bare"))
    results["window: process start → shown"] = [r["shown_s"] for r in window_runs]
    results["window: process start → painted (grab)"] = [r["painted_s"] for r in window_runs]
    results["bare QWidget: process start → shown"] = [r["shown_s"] for r in bare_runs]
    results["bare QWidget: process start → painted (grab)"] = [r["painted_s"] for r in bare_runs]
    ratios_shown = [w["shown_s"] / b["shown_s"] for w, b in zip(window_runs, bare_runs, strict=True)]
    ratios_painted = [w["painted_s"] / b["painted_s"] for w, b in zip(window_runs, bare_runs, strict=True)]

    print("\nwhole-process wall time")
    for label in commands:
        print(row(label, results[label]))
    print("\nwindow start-up (offscreen)")
    for label in [k for k in results if k.startswith(("window", "bare"))]:
        print(row(label, results[label]))
    print("\nratios, pair by pair")
    print(row("window ÷ bare Qt window (shown)", ratios_shown, unit="x"))
    print(row("window ÷ bare Qt window (painted)", ratios_painted, unit="x"))
    version = statistics.median(results["python -m desktop_agent --version"])
    bare_python = statistics.median(results["python -c pass"])
    print(f"  {'--version ÷ python -c pass (medians)':<46} {version / bare_python:.2f}")

    heavy_sets = {tuple(r["heavy"]) for r in window_runs}
    notable = window_runs[-1]["notable"]
    print("\nheavy modules imported when the window first shows:",
          ", ".join(sorted({m for s in heavy_sets for m in s})) or "none",
          f"(checked: {', '.join(HEAVY)})")
    print("other modules already imported then:", ", ".join(notable) or "none",
          f"({window_runs[-1]['modules']} modules in sys.modules; bare window: {bare_runs[-1]['modules']})")
    stderr = {r["stderr"].strip() for r in window_runs if r["stderr"].strip()}
    if stderr:
        print("window stderr:", *sorted(stderr), sep="\n  ")

    if args.importtime:
        print("\nimport time before the window shows, by package (python -X importtime, self time summed):")
        print("\n".join(importtime_report(runner)))

    if args.figures:
        emit_figures(results, ratios_shown, ratios_painted, sorted({m for s in heavy_sets for m in s}), args.runs)

    if args.json:
        args.json.write_text(json.dumps({
            "runs": args.runs, "figures_s": results, "ratio_shown": ratios_shown, "ratio_painted": ratios_painted,
            "heavy_at_show": sorted({m for s in heavy_sets for m in s}), "notable_at_show": notable,
        }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
