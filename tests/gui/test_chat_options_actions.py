"""The chat options' menu entries stay usable from Python for the window's whole life.

PySide may invalidate the Python side of a ``QAction`` that C++ made (``menu.addAction(text)``) while the action
itself lives on: once the chat view took its stand-in's place and the stand-in was deleted, the end of every turn
raised "Internal C++ object (QAction) already deleted" in ``ChatOptions._display`` (and the Think choice shown
stopped following the chat's options)."""

from __future__ import annotations

import time

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop
from PySide6.QtWidgets import QApplication

from tests.helpers.gui import wait_idle


def _deleted_later_now() -> None:
    """Run the deletions start-up queued (``deleteLater``), as the event loop does when it next gets control."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)


def _held_actions(strip) -> list:
    return [*strip.think_actions.values(), strip.more_json, strip.more_think,
            *([strip.anyway_action] if strip.anyway_action is not None else [])]


def _window_started_by_hand(settings):
    """A window built and started as a script does (no qtbot): events processed until its start-up is done."""
    from desktop_agent.ui.main_window import MainWindow

    w = MainWindow(settings, check_server=False)
    w.resize(1180, 800)
    w.show()
    deadline = time.monotonic() + 30
    while not w.startup.done and time.monotonic() < deadline:
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)
    assert w.startup.done
    return w


def test_a_turn_ends_with_the_think_menu_usable_after_the_start_ups_deletions(qtbot, ollama_server,
                                                                               ollama_settings):
    w = _window_started_by_hand(ollama_settings)
    try:
        _check_a_turn(qtbot, w)
    finally:
        w.close()
        w.deleteLater()


def _check_a_turn(qtbot, w) -> None:
    _deleted_later_now()
    strip = w.chat_options
    assert all(shiboken6.isValid(a) for a in _held_actions(strip))
    errors: list[BaseException] = []
    w.send("hello there")
    with qtbot.captureExceptions() as caught:
        wait_idle(qtbot, w)
    errors.extend(e[1] for e in caught)
    assert not errors, errors
    assert all(shiboken6.isValid(a) for a in _held_actions(strip))
    # the menu still sets the chat's option, and shows it checked
    strip.think_actions[False].trigger()
    assert w.conversation.options.get("generation.think") is False
    assert strip.think_actions[False].isChecked() and not strip.think_actions[None].isChecked()


def test_the_tools_menu_entries_stay_usable_after_the_start_ups_deletions(make_window, qtbot, ollama_server,
                                                                          ollama_settings):
    w = make_window(ollama_settings.updated({"tools.only_relevant": False}))
    strip = w.chat_options
    with qtbot.waitSignal(strip.tools_listed, timeout=10_000):
        strip.list_tools()
    _deleted_later_now()
    assert strip.tool_actions and all(shiboken6.isValid(a) for a in strip.tool_actions.values())
    assert all(shiboken6.isValid(a) for a in strip.next_tool_actions.values())
    strip.tool_actions["calculator"].setChecked(False)
    assert "calculator" in w.conversation.options.get("tools.disabled", [])
