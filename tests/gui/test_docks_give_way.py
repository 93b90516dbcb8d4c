"""At the window's minimum size nothing is cut off: the side docks give way to the chat (shrink, then hide) and
come back when there is room; the toolbar shows every button; the user's own choice of docks is kept."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from desktop_agent.core.settings import Settings


def _minimum(w):
    return w.minimumSize().expandedTo(w.minimumSizeHint())


def _with_history(make_window, qtbot):
    w = make_window(Settings(), size=(1280, 800))
    qtbot.waitUntil(lambda: w.history_dock is not None and w.history_dock.isVisible(), timeout=5000)
    return w


def test_at_the_minimum_size_the_docks_give_way_and_the_toolbar_fits(make_window, qtbot):
    w = _with_history(make_window, qtbot)
    w.resize(_minimum(w))
    qtbot.waitUntil(lambda: not w.history_dock.isVisible(), timeout=3000)
    qtbot.waitUntil(lambda: w.central.width() >= w.HIDE_DOCKS_BELOW, timeout=3000)
    assert w.tool_dock.isVisible()  # the tool activity gives way last
    # every toolbar action has its own visible button (none hidden behind the overflow arrow)
    for action in (w.new_chat_action, w.history_action, w.toggle_tools_action, w.settings_action,
                   w.refresh_action):
        button = w.toolbar.widgetForAction(action)
        assert isinstance(button, QToolButton) and button.isVisible(), action.text()
        assert button.geometry().right() <= w.toolbar.width()
    assert w.picker.isVisible() and w.picker.geometry().right() <= w.toolbar.width()
    assert w.chat.column.width() <= w.chat.viewport().width()
    assert w.sidebar.width() >= w.sidebar.minimumWidth()


def test_the_docks_come_back_when_the_window_is_wide_again(make_window, qtbot):
    w = _with_history(make_window, qtbot)
    qtbot.wait(50)
    before = w.history_dock.width()
    w.resize(_minimum(w))
    qtbot.waitUntil(lambda: not w.history_dock.isVisible(), timeout=3000)
    w.resize(1280, 800)
    qtbot.waitUntil(lambda: w.history_dock.isVisible(), timeout=3000)
    qtbot.wait(50)
    assert abs(w.history_dock.width() - before) <= 40
    assert w.tool_dock.isVisible()
    assert w.central.width() >= w.MIN_CHAT_WIDTH


def test_a_dock_the_user_hid_stays_hidden_when_the_window_widens(make_window, qtbot):
    w = _with_history(make_window, qtbot)
    w.history_action.trigger()  # the user hides the history
    assert not w.history_dock.isVisible()
    w.resize(_minimum(w))
    qtbot.wait(100)
    w.resize(1280, 800)
    qtbot.wait(200)
    assert not w.history_dock.isVisible()
    assert w.tool_dock.isVisible()


def test_a_dock_the_user_shows_in_a_small_window_stays(make_window, qtbot):
    w = _with_history(make_window, qtbot)
    w.resize(_minimum(w))
    qtbot.waitUntil(lambda: not w.history_dock.isVisible(), timeout=3000)
    w.history_action.trigger()  # the user wants it anyway
    qtbot.wait(100)
    assert w.history_dock.isVisible()
    assert w.dock_fit.given_way == []


def test_a_dock_that_gave_way_is_saved_as_shown(make_window, qtbot):
    """Closing a small window keeps the layout the user chose: the next start shows the history."""
    w = _with_history(make_window, qtbot)
    w.resize(_minimum(w))
    qtbot.waitUntil(lambda: not w.history_dock.isVisible(), timeout=3000)
    w.close()
    again = _with_history(make_window, qtbot)
    assert again.history_dock.isVisible()


@pytest.mark.usefixtures("clean_keyring_state")
def test_a_small_window_keeps_the_chat_usable(qtbot, make_window, ollama_settings):
    """Resized to 800×600 the docks kept their width and the chat shrank to ≈230 px, and the toolbar
    hid Tool activity and Settings behind its overflow arrow."""
    w = make_window(ollama_settings, size=(1280, 800))
    qtbot.waitUntil(lambda: w.history_dock is not None and w.history_dock.isVisible(), timeout=5000)
    w.resize(800, 600)
    qtbot.waitUntil(lambda: w.chat.width() >= 340, timeout=5000)
    assert w.tool_dock.isVisible() and w.history_dock.isVisible()
    for action in (w.settings_action, w.toggle_tools_action, w.new_chat_action):
        button = w.toolbar.widgetForAction(action)
        assert button is not None and button.isVisible()
        assert button.geometry().right() <= w.toolbar.width()
    # wide again: the buttons get their text back
    w.resize(1280, 800)
    qtbot.waitUntil(lambda: w.toolbar.widgetForAction(w.settings_action).toolButtonStyle()
                    == Qt.ToolButtonStyle.ToolButtonTextBesideIcon, timeout=5000)
