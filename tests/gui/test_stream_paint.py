"""Streaming into the chat repaints only what changed, and what is on screen is still exactly right.

A streaming frame used to repaint the whole visible chat (≈ 30 times a second). Now a resize paints only the
area it uncovers, the opaque chat content is scrolled by moving its pixels, and a turn repaints its rounded
bottom edge when it grows. These tests compare the window's pixels on screen (the offscreen platform's backing
store) with a fresh paint of the same widgets, mid-stream and at the end, and count what a frame repaints.
"""

from __future__ import annotations

import statistics

from PySide6.QtCore import QCoreApplication, QEvent, QObject
from PySide6.QtGui import QImage, QRegion
from PySide6.QtWidgets import QApplication

from desktop_agent.core.events import AnswerFinished, TextDelta
from desktop_agent.core.messages import Message
from desktop_agent.ui.agent_runner import TurnEnded, TurnStarted
from desktop_agent.ui.chat.parts import FRAME_MS, MAX_FRAME_MS
from desktop_agent.ui.chat.view import ChatView
from desktop_agent.ui.event_table import feed


def _answer(sections: int = 14) -> list[str]:
    """A long markdown answer (headings, paragraphs, lists, code fences) cut into word tokens."""
    parts = []
    for i in range(sections):
        parts.append(f"## Step {i}\n\n" + " ".join(f"word{i}x{k}" for k in range(60)) + ".\n\n")
        if i % 2:
            parts.append("- first item of the list\n- second item\n  - nested one\n- third\n\n")
        else:
            body = "\n".join(f"    x_{k} = value + {k}" for k in range(8))
            parts.append(f"```python\ndef step_{i}(value):\n{body}\n    return value\n```\n\n")
    text = "".join(parts)
    tokens, word = [], ""
    for ch in text:
        if ch in " \n" and word.strip():
            tokens.append(word)
            word = ""
        word += ch
    return [*tokens, word]


def _frame(view: ChatView, tokens: list[str]) -> None:
    """One streaming frame: the tokens arrive, the frame is due, the view's tick renders it, Qt paints."""
    for tok in tokens:
        feed(view.routes(), TextDelta(tok))
    for p in view.live.parts:
        p._last = 0.0  # due now (the frame interval is the timer's business, not this test's)
    view._on_tick()
    for _ in range(3):
        QApplication.processEvents()


def _on_screen(view: ChatView) -> QImage:
    """The window's pixels as last painted, once the pending layouts and paints are done (what the user sees
    a moment later)."""
    for _ in range(6):
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    QCoreApplication.sendPostedEvents(view.window(), QEvent.Type.UpdateRequest)
    return view.screen().grabWindow(view.winId()).toImage().convertToFormat(QImage.Format.Format_RGB32)


def _fresh(view: ChatView) -> QImage:
    return view.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


class _PaintLog(QObject):
    """The area (px) the chat content is asked to paint."""

    def __init__(self, widget):
        super().__init__()
        self.area = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.area += sum(r.width() * r.height() for r in QRegion(event.region()))
        return False


def test_streamed_answer_on_screen_equals_a_fresh_paint(view):
    """Mid-stream and after the end, the pixels on screen are those a full repaint gives: no stale rounded
    edge, no half-drawn block, the view at the bottom of the answer."""
    tokens = _answer()
    feed(view.routes(), TurnStarted(1, "c", "write a long answer"))
    for i in range(0, len(tokens) // 2, 17):
        _frame(view, tokens[i:i + 17])
    bar = view.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()  # it followed the answer down
    assert _on_screen(view) == _fresh(view)
    for i in range(len(tokens) // 2, len(tokens), 17):
        _frame(view, tokens[i:i + 17])
    feed(view.routes(), AnswerFinished(Message(role="assistant", content="".join(tokens))))
    feed(view.routes(), TurnEnded(1, "finished"))
    for _ in range(3):
        QApplication.processEvents()
    assert bar.value() == bar.maximum()
    assert _on_screen(view) == _fresh(view)


def test_a_streaming_frame_repaints_a_strip_not_the_whole_chat(view):
    """A frame repaints the open block and the strip the scroll uncovers (a frame that seals finished blocks
    into a chunk of their own repaints more: the median frame is what is compared)."""
    tokens = _answer()
    feed(view.routes(), TurnStarted(1, "c", "write a long answer"))
    for i in range(0, 900, 17):
        _frame(view, tokens[i:i + 17])
    log = _PaintLog(view.content)
    areas = []
    for i in range(900, 900 + 12 * 17, 17):
        before = log.area
        _frame(view, tokens[i:i + 17])
        areas.append(log.area - before)
    visible = view.viewport().width() * view.viewport().height()
    assert statistics.median(areas) < visible / 2  # was the whole visible chat (or more) every frame


def test_the_answer_never_loses_its_top_while_it_streams(view):
    """When finished blocks move into a sealed chunk of their own, the chunk is shown at once — not by the
    layout's deferred show: until then it took no space, and the frame painted meanwhile showed the chat
    without the answer's top (the view jumped to the top and back)."""
    tokens = _answer(30)
    feed(view.routes(), TurnStarted(1, "c", "write a long answer"))
    bar = view.verticalScrollBar()
    highest = 0
    for i in range(0, len(tokens), 17):
        for tok in tokens[i:i + 17]:
            feed(view.routes(), TextDelta(tok))
        part = view.live.parts[-1]
        part._last = 0.0
        view._on_tick()
        assert all(chunk.isVisible() for chunk in part.sealed)  # before any other event is processed
        for _ in range(3):
            QApplication.processEvents()
        assert bar.maximum() >= highest - 40  # a re-rendered open block may settle a line shorter
        highest = max(highest, bar.maximum())
    assert view.live.parts[-1].sealed  # the answer was long enough to be sealed in chunks


def test_frames_are_paced_by_what_they_cost(view):
    """Cheap frames: ≈ 30 a second; costly ones (a fast stream, a long open block, a busy machine): fewer,
    down to MAX_FRAME_MS apart — the text still shows within a quarter second. The runner is told the pace: it hands
    the streamed text over once a frame."""
    paces: list[float] = []
    view.frame_interval_changed.connect(paces.append)
    for _ in range(30):
        view._pace(0.2)
    assert view.ctx.frame_ms == FRAME_MS
    for _ in range(30):
        view._pace(50.0)
    assert view.ctx.frame_ms == MAX_FRAME_MS
    assert FRAME_MS < MAX_FRAME_MS <= 250
    assert paces and paces[-1] == MAX_FRAME_MS


def test_the_window_hands_streamed_text_over_at_the_chat_views_pace(make_window, ollama_settings):
    window = make_window(ollama_settings)
    window.chat._pace(50.0)
    window.chat._pace(50.0)
    assert window.runner.batch_ms == window.chat.ctx.frame_ms > FRAME_MS


def _handle(bar) -> tuple:
    from PySide6.QtWidgets import QStyle, QStyleOptionSlider

    opt = QStyleOptionSlider()
    bar.initStyleOption(opt)
    slider = QStyle.SubControl.SC_ScrollBarSlider
    rect = bar.style().subControlRect(QStyle.ComplexControl.CC_ScrollBar, opt, slider, bar)
    return rect.getRect()


def test_the_scroll_bar_repaints_only_when_its_handle_moves_on_screen(view):
    """A frame grows the scroll range and follows it down; the scroll bar used to repaint twice a frame. In a
    long answer its handle's pixels often stay put: it repaints once in a frame that moved them, not at all in
    one that did not, and shows the right place (the pixel comparisons above include it)."""
    tokens = _answer(30)
    feed(view.routes(), TurnStarted(1, "c", "write a long answer"))
    for i in range(0, 2000, 17):
        _frame(view, tokens[i:i + 17])
    bar = view.verticalScrollBar()
    log = _PaintLog(bar)
    painted, moved = [], []
    for i in range(2000, 2000 + 30 * 17, 17):
        before, handle = log.area, _handle(bar)
        _frame(view, tokens[i:i + 17])
        painted.append(log.area > before)
        moved.append(_handle(bar) != handle)
    assert bar.value() == bar.maximum()
    assert painted == moved and not all(moved)
    assert _on_screen(view) == _fresh(view)
