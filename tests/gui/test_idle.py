"""An idle window does not wake up for nothing: Ctrl+C is noticed through a wakeup fd (no polling timer),
and the text cursor stops blinking after a while without input (as in GTK)."""

from __future__ import annotations

import os
import signal

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from desktop_agent.ui.application import _close_on_sigint
from desktop_agent.ui.cursor_blink import BlinkTimeout


def _repeating_timers(widget) -> list[QTimer]:
    return [t for t in widget.findChildren(QTimer) if t.isActive() and not t.isSingleShot()]


def test_sigint_closes_the_window_without_a_polling_timer(make_window, qtbot):
    w = make_window()
    before, handler = _repeating_timers(w), signal.getsignal(signal.SIGINT)
    restore = _close_on_sigint(w)
    try:
        assert _repeating_timers(w) == before  # nothing wakes the loop every few hundred ms
        fd = signal.set_wakeup_fd(-1)
        signal.set_wakeup_fd(fd)
        assert fd != -1  # the signal's C handler writes to the socket the loop watches
        os.kill(os.getpid(), signal.SIGINT)
        qtbot.waitUntil(lambda: not w.isVisible(), timeout=5000)
    finally:
        restore()
    assert signal.getsignal(signal.SIGINT) is handler
    assert signal.set_wakeup_fd(-1) == -1  # given back


def test_the_cursor_stops_blinking_without_input_and_blinks_again_on_typing(make_window, qtbot):
    app = QApplication.instance()
    flash = app.cursorFlashTime()
    assert flash > 0
    w = make_window()
    blink = BlinkTimeout(app, w, timeout_ms=200)
    blink.watch(w.input)
    try:
        qtbot.waitUntil(lambda: not blink.blinking, timeout=3000)
        assert app.cursorFlashTime() == 0
        qtbot.keyClick(w.input, Qt.Key.Key_A)
        assert app.cursorFlashTime() == flash and w.input.toPlainText() == "a"
        qtbot.waitUntil(lambda: not blink.blinking, timeout=3000)
        qtbot.mouseClick(w.input.viewport(), Qt.MouseButton.LeftButton)
        assert app.cursorFlashTime() == flash
    finally:
        app.setCursorFlashTime(flash)
