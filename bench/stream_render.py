"""Streaming into the chat view: CPU, stalls and the cost of one render as the answer grows (issue 14).

    python bench/stream_render.py [--runs 3] [--tokens 20000] [--rate 500] [--figures]

Offscreen, in this process, into the real :class:`~desktop_agent.ui.chat.view.ChatView` (1000×800, shown):

- **stream**: a 20,000-token markdown answer (paragraphs, nested lists, tables, code fences) is streamed at
  500 tokens/s the whole way a user's answer comes: a real OpenAI-compatible server on 127.0.0.1
  (``tests/servers/openai.py``) sends one SSE event per token on schedule; the real window (the app with
  default settings but for the server, on a home of its own) sends the message, and the answer goes through
  the OpenAI backend, the agent, the chat session (which saves it), the runner's worker thread, the controller
  and the window's views. Measured: the main thread's CPU time (``time.thread_time``) from the
  turn's start to ``TurnEnded``, in streams without a heartbeat (a 10 ms timer costs the main thread about
  120 µs a beat, ≈ 1.4× the limit below over a stream); and in other streams, a 10 ms heartbeat timer's
  gaps (longest, and how many exceed 50 ms) — and, as the wall-clock gaps also count time the process
  waited for a core on a loaded machine, the longest stretch of main-thread CPU time between two beats.
- **limit**: rendering the final answer once, today's way: ``ui.markdown.render`` of the whole text, then
  ``setHtml`` into a chat text view at the chat's width and its layout (main-thread CPU, median of 7).
- **one render at N tokens**: the answer is fed to a live turn up to N tokens, then 7 frames of 17 tokens
  (one frame at 500 tokens/s, 33 ms) are each added and flushed (the turn's render + ``processEvents``); the
  median frame's wall time at 1,000 and at 20,000 tokens.

A 20,000-token stream takes 40 s of wall time, so the default is 3 CPU runs and 2 stall runs (medians),
under 4 minutes for the whole script; ``--runs 7`` for more.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _figures import Figure, emit, machine  # noqa: E402
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, Qt, QTimer, qInstallMessageHandler  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_agent.core.events import AnswerFinished, TextDelta  # noqa: E402
from desktop_agent.ui.agent_runner import TurnEnded, TurnStarted  # noqa: E402
from desktop_agent.ui.chat.view import ChatView  # noqa: E402

FRAME_TOKENS = 17  # 500 tokens/s × 33 ms
PROMPT = "write a long answer"
WORDS = (
    "the", "app", "reads", "a", "file", "and", "says", "in", "a", "line", "what", "it", "did", "to", "it;",
    "then", "it", "runs", "the", "tests,", "the", "type", "and", "the", "lint", "checks,", "and", "says",
    "what", "is", "not", "yet", "right", "and", "why",
)


def sample_answer(n_tokens: int, seed: int = 14) -> list[str]:
    """A long markdown answer cut into ``n_tokens`` tokens (a word with its leading white space, about what a
    model streams)."""
    rnd = random.Random(seed)

    def words(n: int) -> str:
        out = [rnd.choice(WORDS) for _ in range(n)]
        if rnd.random() < 0.5:
            out[rnd.randrange(n)] = "`" + rnd.choice(WORDS) + "()`"
        if rnd.random() < 0.4:
            out[rnd.randrange(n)] = "**" + rnd.choice(WORDS) + "**"
        return " ".join(out)

    sections = []
    i = 0
    while sum(len(re.findall(r"\s*\S+", s)) for s in sections) < n_tokens + 50:
        i += 1
        sections.append(f"## Step {i}: {words(4)}")
        sections.append(words(rnd.randint(40, 90)) + ".")
        kind = i % 4
        if kind == 0:
            sections.append("\n".join(f"- {words(rnd.randint(5, 14))}" + (
                "\n" + "\n".join(f"  - {words(rnd.randint(3, 8))}" for _ in range(2)) if j == 1 else "")
                for j in range(4)))
        elif kind == 1:
            body = "\n".join(
                f"    {'if' if k % 3 == 0 else 'x ='} value_{k} {'> 3:' if k % 3 == 0 else f'+ {k} * 2'}"
                for k in range(rnd.randint(6, 14)))
            sections.append(f"```python\ndef step_{i}(value):\n{body}\n    return value\n```")
        elif kind == 2:
            rows = "\n".join(f"| {words(2)} | {rnd.randint(1, 999)} | {words(3)} |" for _ in range(rnd.randint(3, 6)))
            sections.append(f"| name | count | note |\n|---|---:|---|\n{rows}")
        else:
            sections.append("\n".join(f"{k}. {words(rnd.randint(6, 12))}" for k in range(1, 5)))
        sections.append(words(rnd.randint(20, 50)) + ".")
    tokens = re.findall(r"\s*\S+", "\n\n".join(sections))
    return tokens[:n_tokens]


# ---- the whole path: a real OpenAI-compatible SSE server and the real window ---------------------------


def _chunks(tokens: list[str]) -> list[dict]:
    """The answer as a server streams it: one ``chat.completion.chunk`` per token, then the finish."""
    from tests.servers.openai import chunk, new_completion_id

    cid = new_completion_id()
    return ([chunk(cid, "local-model", {"role": "assistant", "content": ""})]
            + [chunk(cid, "local-model", {"content": tok}) for tok in tokens]
            + [chunk(cid, "local-model", {}, "stop")])


class _Path:
    """A started SSE server streaming at ``rate`` events/s and a window (the app as the user runs it, on a
    home of its own) whose chat talks to it."""

    def __init__(self, rate: float, home: Path):
        from tests.servers.openai import OpenAIServer

        os.environ["DESKTOP_AGENT_HOME"] = str(home)
        os.environ.setdefault("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
        self.server = OpenAIServer().start()
        self.server.events_per_s = rate

    def window(self):
        from desktop_agent.core.settings import Settings
        from desktop_agent.ui.main_window import MainWindow

        settings = Settings(backend="openai", openai_base_url=self.server.url, openai_model="local-model",
                            openai_needs_key=False, openai_retries_per_key=0, tools_enabled=False)
        w = MainWindow(settings, check_server=False)
        w.resize(1180, 800)
        w.show()
        deadline = time.monotonic() + 60
        while not w.startup.done and time.monotonic() < deadline:
            QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.01)
        return w

    def stop(self) -> None:
        self.server.stop()


def _quiet_qt(_mode, _context, message: str) -> None:
    if "propagateSizeHints" not in message:  # the offscreen platform's note on every shown window
        print(message, file=sys.stderr)


def _new_view() -> ChatView:
    view = ChatView()
    view.resize(1000, 800)
    view.show()
    QApplication.processEvents()
    return view


def stream_once(path: _Path, tokens: list[str], heartbeat_on: bool = True) -> dict:
    """One answer streamed the whole way — the server's SSE events, the OpenAI backend, the agent, the chat
    session (saving), the runner's worker thread, the controller and the window's views — into a fresh window.
    ``heartbeat_on``: run the 10 ms heartbeat that finds stalls — it costs the main thread about 120 µs a beat
    itself, so the CPU figure comes from a stream without it."""
    window = path.window()
    chunks = _chunks(tokens)

    def answer(request: dict) -> list[dict] | None:
        """The long answer, for the request that asks for it: another chat request may come first (e.g. a
        background request of the previous window) — it gets the fake model's default reply and the answer
        waits (once, it had taken the answer, and the stream measured was a one-line reply)."""
        last = (request.get("messages") or [{}])[-1]
        if last.get("role") == "user" and last.get("content") == PROMPT:  # (a title request quotes it)
            return chunks
        path.server.script(answer)
        print(f"  (another chat request first: {str(last.get('content'))[:80]!r})", file=sys.stderr)
        return None

    path.server.script(answer)
    loop = QEventLoop()
    beats: list[float] = []
    cpu_beats: list[float] = []
    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(10)
    heartbeat.timeout.connect(lambda: (beats.append(time.monotonic()), cpu_beats.append(time.thread_time())))
    answered: list[bool] = []

    def on_event(ev: object) -> None:
        if isinstance(ev, AnswerFinished):
            answered.append(True)
        if isinstance(ev, TurnEnded):
            QTimer.singleShot(0, loop.quit)  # after the window handled it too

    window.runner.turn_event.connect(on_event)
    if heartbeat_on:
        heartbeat.start()
    cpu0, wall0 = time.thread_time(), time.monotonic()
    beats.append(wall0)
    cpu_beats.append(cpu0)
    window.send(PROMPT)
    loop.exec()
    cpu, wall = time.thread_time() - cpu0, time.monotonic() - wall0
    heartbeat.stop()
    if not answered:  # no figure from a stream that did not happen
        raise RuntimeError("the streamed turn did not finish")
    saved, streamed = window.conversation.messages[-1].content, "".join(tokens)
    if saved != streamed:
        at = next((i for i, (a, b) in enumerate(zip(saved, streamed, strict=False)) if a != b),
                  min(len(saved), len(streamed)))
        raise RuntimeError(f"the answer saved is not the answer streamed: {len(saved):,} characters saved of "
                           f"{len(streamed):,}, first difference at {at:,} ({saved[at:at + 40]!r} ≠ "
                           f"{streamed[at:at + 40]!r}; role {window.conversation.messages[-1].role})")
    beats.append(time.monotonic())
    cpu_beats.append(time.thread_time())
    gaps = [(b - a) * 1000 for a, b in itertools.pairwise(beats)]
    busy = [(b - a) * 1000 for a, b in itertools.pairwise(cpu_beats)]  # main-thread CPU between two beats
    window.close()
    window.deleteLater()
    # deleted now: ``processEvents`` leaves deferred deletions for the next event loop, which was the next
    # stream's — deleting this window (a long chat) counted as that stream's stall (≈ 150 ms)
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
    QApplication.processEvents()
    return {"cpu_s": cpu, "wall_s": wall, "max_gap_ms": max(gaps), "gaps_50": sum(g > 50 for g in gaps),
            "max_busy_ms": max(busy)}


def render_once_cpu(text: str, width: int) -> float:
    """Main-thread CPU of one render of the whole answer, today's way (markdown → setHtml → layout)."""
    from desktop_agent.ui import markdown, theme
    from desktop_agent.ui.chat.context import ChatContext
    from desktop_agent.ui.chat.widgets import AutoHeightBrowser

    ctx = ChatContext(theme.current())
    colors = ctx.md_colors()
    browser = AutoHeightBrowser()
    browser.resize(width, 100)
    browser.show()
    QApplication.processEvents()
    t0 = time.thread_time()
    out = markdown.render(text, colors)
    browser.document().setDefaultStyleSheet(markdown.style_sheet(colors))
    browser.setHtml(out.html)
    browser.document().size()  # the layout
    QApplication.processEvents()
    took = time.thread_time() - t0
    browser.close()
    browser.deleteLater()
    QApplication.processEvents()
    return took


def _handle(view: ChatView, ev: object) -> None:
    """``ev`` to the view as the controller hands it over (its route for the event's type)."""
    view.routes()[type(ev)](ev)


def frame_ms_at(tokens: list[str], n: int, frames: int = 7) -> float:
    """Median wall time of one frame (17 more tokens, then the live turn's flush) once ``n`` tokens are in."""
    view = _new_view()
    _handle(view, TurnStarted(1, "bench", "q"))
    live = view.live
    assert live is not None
    step = 1000
    for i in range(0, n, step):
        for tok in tokens[i:min(i + step, n)]:
            _handle(view, TextDelta(tok))
        live.flush(force=True)
        QApplication.processEvents()
    extra = tokens[n:n + frames * FRAME_TOKENS]
    if len(extra) < frames * FRAME_TOKENS:  # past the end of the sample: keep the answer growing
        extra = [" more"] * (frames * FRAME_TOKENS)
    times = []
    for f in range(frames):
        for tok in extra[f * FRAME_TOKENS:(f + 1) * FRAME_TOKENS]:
            _handle(view, TextDelta(tok))
        t0 = time.perf_counter()
        live.flush(force=True)
        QApplication.processEvents()
        times.append((time.perf_counter() - t0) * 1000)
    view.close()
    view.deleteLater()
    QApplication.processEvents()
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="streams for the CPU figure (each takes tokens ÷ rate seconds)")
    ap.add_argument("--stall-runs", type=int, default=2, help="streams with the heartbeat, for the stall figure")
    ap.add_argument("--tokens", type=int, default=20_000)
    ap.add_argument("--rate", type=float, default=500.0, help="tokens per second")
    ap.add_argument("--figures", action="store_true", help="print the figures as JSON lines (bench/run_all.py)")
    args = ap.parse_args(argv)
    app = QApplication.instance() or QApplication([sys.argv[0]])
    qInstallMessageHandler(_quiet_qt)
    tokens = sample_answer(args.tokens)
    text = "".join(tokens)
    log = sys.stderr if args.figures else sys.stdout
    print(f"stream_render: {len(tokens):,} tokens ({len(text):,} characters) at {args.rate:.0f} tokens/s, "
          f"{args.runs} runs; {machine()}", file=log)
    render_once_cpu(text, 900)  # warm-up: imports, Pygments lexers
    streams, stalls, renders = [], [], []
    home = tempfile.TemporaryDirectory(prefix="desktop-agent-bench-")
    path = _Path(args.rate, Path(home.name))
    for r in range(max(args.runs, args.stall_runs)):
        if r < args.runs:  # the CPU figure: no heartbeat (it costs the main thread itself)
            streams.append(stream_once(path, tokens, heartbeat_on=False))
            renders.extend(render_once_cpu(text, 900) for _ in range(7 if r == 0 else 2))
            print(f"  run {r + 1}: main-thread CPU {streams[-1]['cpu_s']:.2f} s in {streams[-1]['wall_s']:.1f} s",
                  file=log)
        if r < args.stall_runs:
            stalls.append(stream_once(path, tokens))
            s = stalls[-1]
            print(f"  stall run {r + 1}: longest gap {s['max_gap_ms']:.0f} ms, {s['gaps_50']} gaps > 50 ms; longest "
                  f"main-thread CPU between two beats {s['max_busy_ms']:.0f} ms", file=log)
    path.stop()
    home.cleanup()
    frame_1k = frame_ms_at(tokens, 1000)
    frame_20k = frame_ms_at(tokens, len(tokens))
    cpu = statistics.median(s["cpu_s"] for s in streams)
    ref = statistics.median(renders)
    gap = statistics.median(s["max_gap_ms"] for s in stalls)
    n50 = statistics.median(s["gaps_50"] for s in stalls)
    busy = statistics.median(s["max_busy_ms"] for s in stalls)
    note = f"median of {args.runs} streams; {machine().split(', ')[-1]}"
    stall_note = f"median of {args.stall_runs} other streams, with the heartbeat; {machine().split(', ')[-1]}"
    figures = [
        Figure(f"streaming {len(tokens):,} tokens at {args.rate:.0f}/s: main-thread CPU ÷ one render",
               round(cpu / ref, 2), "×", "≤ 2×", cpu / ref <= 2,
               limit=f"one render of the result ({ref * 1000:.0f} ms CPU; stream {cpu:.2f} s)", note=note),
        Figure("longest event-loop stall during that stream (10 ms heartbeat)", round(gap), "ms", "≤ 50 ms",
               gap <= 50, note=f"{n50:.0f} gaps > 50 ms; longest main-thread CPU between two beats {busy:.0f} ms "
               f"(what the stall would be on an idle machine); {stall_note}"),
        Figure(f"one render of the growing answer at {len(tokens):,} ÷ at 1,000 tokens", round(frame_20k / frame_1k, 2),
               "×", "flat (≤ 1.5×)", frame_20k / frame_1k <= 1.5,
               limit=f"at 1,000 tokens ({frame_1k:.1f} ms → {frame_20k:.1f} ms)", note="median of 7 frames"),
    ]
    if args.figures:
        emit(figures)
    else:
        print()
        for f in figures:
            print(f"  {f.figure}: {f.value} {f.unit}  (limit: {f.limit or '—'}; goal {f.goal}: "
                  f"{'met' if f.met else 'NOT met'}) {f.note}")
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
