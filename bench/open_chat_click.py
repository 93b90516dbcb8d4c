"""Opening a long chat from the history, as a user feels it (issue 23): the real window on a data folder with a
2,000-message chat (500 tool calls, markdown answers) and a short one; a mouse click on the long chat's row in
the history panel, and the clock stops when the chat view has painted that chat (the user can read it): at the
end of the event-loop pass that painted it. The short chat is clicked in between, so each measured click opens
the long chat afresh.

    python bench/open_chat_click.py [--clicks 7] [--figures]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _figures import Figure, emit, load  # noqa: E402


def build(home: Path) -> tuple[str, str]:
    """The long chat (500 turns: question, tool call, tool result, markdown answer) and a short one."""
    from stream_render import sample_answer

    from desktop_agent.core.messages import Conversation, Message, ToolCall
    from desktop_agent.core.store import ConversationStore

    t = time.time() - 86400
    long_chat = Conversation(model="llama3.2", backend="ollama", title="A long chat with tools")
    for i in range(500):
        call = ToolCall(name="calculator", arguments={"expression": f"{i} * 17"})
        long_chat.messages += [
            Message(role="user", content=f"Question {i}: what is {i} times 17?", created_at=t + 4 * i),
            Message(role="assistant", tool_calls=[call], created_at=t + 4 * i + 1),
            Message(role="tool", content=str(i * 17), tool_call_id=call.id, tool_name="calculator", duration_ms=1.0,
                    created_at=t + 4 * i + 2),
            Message(role="assistant", content="".join(sample_answer(120, seed=i)), created_at=t + 4 * i + 3),
        ]
    short = Conversation(title="A short chat", messages=[Message(role="user", content="Hello"),
                                                          Message(role="assistant", content="Hi!")])
    with ConversationStore(home / "data" / "conversations.sqlite3") as store:
        store.add_conversations([long_chat, short])
    return long_chat.id, short.id


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clicks", type=int, default=7)
    ap.add_argument("--figures", action="store_true", help="also print the figures as JSON lines (run_all.py)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="da-open-click-") as tmp:
        os.environ["DESKTOP_AGENT_HOME"] = tmp
        (Path(tmp) / "data").mkdir(parents=True)
        long_id, short_id = build(Path(tmp))
        return measure(long_id, short_id, args)


def measure(long_id: str, short_id: str, args: argparse.Namespace) -> int:
    from PySide6.QtCore import QEvent, QObject, QPoint, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from desktop_agent.core.settings import Settings
    from desktop_agent.ui.history.models import IdRole
    from desktop_agent.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    w = MainWindow(Settings(), check_server=False)
    w.resize(1180, 760)
    w.show()

    painting: list[bool] = []  # a paint of the target chat began in the last processEvents

    def wait(s: float, until=lambda: False) -> None:
        end = time.perf_counter() + s
        while time.perf_counter() < end and not until():
            app.processEvents()
            if painting and not shown_at:  # that paint is done now: the chat is on screen
                shown_at.append(time.perf_counter())
            time.sleep(0.002)

    wait(10, until=lambda: w.ready and w.history.panel is not None)
    wait(1.0)  # the warm-up stage and the first paints
    panel = w.history.panel
    shown_at: list[float] = []

    class Painted(QObject):
        def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt's name
            if event.type() == QEvent.Type.Paint and not painting and w.conversation.id == target[0]:
                painting.append(True)
            return False

    painted = Painted()
    w.chat.viewport().installEventFilter(painted)
    target = [""]

    def click(chat_id: str) -> float:
        row = next(r for r in range(panel.model.rowCount()) if panel.model.index(r).data(IdRole) == chat_id)
        rect = panel.list.visualRect(panel.model.index(row))
        target[0] = chat_id
        shown_at.clear()
        painting.clear()
        t = time.perf_counter()
        QTest.mouseClick(panel.list.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center()))
        wait(10, until=lambda: bool(shown_at))
        return ((shown_at[0] if shown_at else time.perf_counter()) - t) * 1000

    times = []
    for _ in range(args.clicks):
        click(short_id)
        wait(0.5)
        times.append(click(long_id))
        wait(0.8)  # the rest of the chat and the sidebar settle
    w.close()
    median, worst = statistics.median(times), max(times)
    print(f"click a 2,000-message chat (500 tool calls) in the history → shown: median {median:.0f} ms, "
          f"max {worst:.0f} ms over {len(times)} clicks ({', '.join(f'{t:.0f}' for t in times)})")
    if args.figures:
        emit([Figure("click a 2,000-message chat (500 tool calls) in the history → painted", round(median, 1), "ms",
                     "≤ 300 ms", median <= 300, note=f"median of {len(times)} clicks, max {worst:.0f} ms; {load()}")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
