"""A long saved chat in the chat view: time to the first frame, and memory after scrolling to the top (issue 14).

    python bench/long_chat.py [--runs 3] [--messages 2000] [--figures]

Builds a store with one chat of ``--messages`` messages (user questions and markdown answers of ≈ 1.5 KB
with code, lists and tables) in a temporary folder, then, in a fresh process each run (offscreen, the real
:class:`~desktop_agent.ui.chat.view.ChatView` at 1000×800, shown):

- **open → first frame**: ``ConversationStore.load`` + ``ChatView.set_conversation`` + the first full paint
  (``grab()``), wall time;                                                              goal ≤ 300 ms
- **RSS after scrolling to the top**: the scroll bar is set to the top again and again (each time the view
  creates the next older page, as when the user drags it there) until no older message is left;
  ``VmRSS`` then;                                                                        goal ≤ 250 MB
- also printed: RSS right after opening, the number of built blocks at the end, the slowest step (a page
  load, with the releases and rebuilds it causes).
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

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _figures import Figure, emit, machine, rss_mb  # noqa: E402


def build(db: Path, n: int) -> str:
    from stream_render import sample_answer

    from desktop_agent.core.messages import Conversation, Message
    from desktop_agent.core.store import ConversationStore

    conv = Conversation(model="llama3.2", backend="ollama", title="a long chat")
    t = time.time() - 86400
    for i in range(n // 2):
        conv.messages.append(Message(role="user", content=f"Question {i}: what does step {i} change?",
                                     created_at=t + 2 * i))
        answer = "".join(sample_answer(300, seed=i))
        conv.messages.append(Message(role="assistant", content=answer, model="llama3.2", backend="ollama",
                                     created_at=t + 2 * i + 1))
    store = ConversationStore(db)
    store.add_conversations([conv])
    store.close()
    return conv.id


def child(db: str, conversation_id: str) -> None:
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from desktop_agent.core.store import ConversationStore
    from desktop_agent.ui.chat.view import ChatView

    app = QApplication([sys.argv[0]])
    qInstallMessageHandler(lambda *_a: None)
    view = ChatView()
    view.resize(1000, 800)
    view.show()
    app.processEvents()
    from desktop_agent.ui.chat.context import markdown_module

    markdown_module().warm_up()  # the window does this right after it shows
    store = ConversationStore(db)
    rss_start = rss_mb()
    t0 = time.perf_counter()
    conv = store.load(conversation_id)
    view.set_conversation(conv)
    view.grab()
    first_frame_ms = (time.perf_counter() - t0) * 1000
    app.processEvents()
    rss_open = rss_mb()
    bar = view.verticalScrollBar()
    slowest = 0.0
    t_top = time.perf_counter()
    while view._pending:
        t = time.perf_counter()
        if bar.value() == 0:  # already there: the user pulls again
            bar.setValue(1)
        bar.setValue(0)
        for _ in range(4):
            app.processEvents()
        slowest = max(slowest, (time.perf_counter() - t) * 1000)
    view.grab()
    top_s = time.perf_counter() - t_top
    app.processEvents()
    blocks = sum(1 for b in view.blocks if type(b).__name__ != "Placeholder")
    print(json.dumps({"first_frame_ms": first_frame_ms, "rss_start": rss_start, "rss_open": rss_open,
                      "rss_top": rss_mb(), "top_s": top_s, "slowest_ms": slowest, "blocks": len(view.blocks),
                      "built": blocks, "pending": len(view._pending)}), flush=True)
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--messages", type=int, default=2000)
    ap.add_argument("--figures", action="store_true", help="print the figures as JSON lines (bench/run_all.py)")
    ap.add_argument("--child", nargs=2, metavar=("DB", "ID"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    log = sys.stderr if args.figures else sys.stdout
    with tempfile.TemporaryDirectory(prefix="da-long-chat-") as tmp:
        env = {**os.environ, "DESKTOP_AGENT_HOME": tmp, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen"}
        os.environ["DESKTOP_AGENT_HOME"] = tmp
        db = Path(tmp) / "chat.sqlite3"
        cid = build(db, args.messages)
        print(f"long_chat: {args.messages:,} messages, {args.runs} runs; {machine()}", file=log)
        runs = []
        for r in range(args.runs):
            proc = subprocess.run([sys.executable, __file__, "--child", str(db), cid], env=env, cwd=ROOT,
                                  capture_output=True, text=True, timeout=900)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            if proc.returncode != 0 or not lines:
                raise RuntimeError(f"child exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr[-3000:]}")
            runs.append(json.loads(lines[-1]))
            d = runs[-1]
            print(f"  run {r + 1}: first frame {d['first_frame_ms']:.0f} ms; RSS {d['rss_start']:.0f} MB before, "
                  f"{d['rss_open']:.0f} MB open, {d['rss_top']:.0f} MB at the top ({d['built']} of "
                  f"{d['blocks']} blocks built, {d['top_s']:.1f} s to get there, slowest step "
                  f"{d['slowest_ms']:.0f} ms)", file=log)
    first = statistics.median(d["first_frame_ms"] for d in runs)
    top = statistics.median(d["rss_top"] for d in runs)
    note = f"median of {args.runs}; {machine().split(', ')[-1]}"
    figures = [
        Figure(f"RSS after scrolling a {args.messages:,}-message chat to the top", round(top), "MB", "≤ 250 MB",
               top <= 250, note=f"{statistics.median(d['rss_open'] for d in runs):.0f} MB right after opening; "
               f"slowest step {statistics.median(d['slowest_ms'] for d in runs):.0f} ms; {note}"),
        Figure(f"open a {args.messages:,}-message chat to first frame", round(first), "ms", "≤ 300 ms",
               first <= 300, note=note),
    ]
    if args.figures:
        emit(figures)
    else:
        print()
        for f in figures:
            print(f"  {f.figure}: {f.value} {f.unit}  (goal {f.goal}: {'met' if f.met else 'NOT met'}) {f.note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
