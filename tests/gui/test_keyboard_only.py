"""The first hour with the keyboard alone: send a message, Stop an answer, approve a tool call, open a past
chat, change a setting — key presses only (no clicks, no setFocus), against the scripted Ollama server. At
each stop the control with the focus is one a user can see: the focus ring lies around it (or it draws its
own focus: a text field's caret and frame)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QApplication, QWidget

from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
from desktop_agent.ui.accessibility import draws_own_focus
from tests.helpers.gui import last_run, last_turn_text, wait_idle, waiting_card
from tests.helpers.replies import text_lines, tool_call_lines

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def focused() -> QWidget:
    w = QApplication.focusWidget()
    assert w is not None, "nothing has the keyboard focus"
    return w


def press(qtbot, key: Qt.Key, modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed where the keyboard focus is (as a user's key goes)."""
    qtbot.keyClick(focused(), key, modifier)


def type_text(qtbot, text: str) -> None:
    qtbot.keyClicks(focused(), text)  # ASCII only: non-ASCII key clicks abort Qt (see ENVIRONMENT.md)


def tab_to(qtbot, target: QWidget, *, backwards: bool = False, limit: int = 80) -> list[QWidget]:
    """Press Tab (Shift+Tab) until ``target`` has the focus; the widgets passed on the way."""
    passed = []
    for _ in range(limit):
        if focused() is target:
            return passed
        passed.append(focused())
        press(qtbot, Qt.Key.Key_Backtab if backwards else Qt.Key.Key_Tab, SHIFT if backwards else
              Qt.KeyboardModifier.NoModifier)
    raise AssertionError(f"{limit} Tab presses did not reach {target!r}; passed "
                         f"{[type(w).__name__ + ':' + w.accessibleName() for w in passed]}")


def assert_focus_visible(window) -> None:
    """The focused control shows that it has the focus: the window's ring lies around it, or it is a text field
    that draws its own focus."""
    w = focused()
    if draws_own_focus(w):
        return
    ring = window.focus_ring.ring
    assert window.focus_ring.target is w and ring is not None and ring.isVisible(), f"no focus ring on {w!r}"
    ring_at = QRect(ring.mapToGlobal(QPoint(0, 0)), ring.size())
    widget_at = QRect(w.mapToGlobal(QPoint(0, 0)), w.size())
    assert ring_at.contains(widget_at.center()) and ring_at.intersects(widget_at), (ring_at, widget_at)


@pytest.fixture
def ask_tools(tmp_path):
    d = tmp_path / "ask_tools"
    d.mkdir()
    (d / "asking.py").write_text(
        "from desktop_agent import tool\n\n"
        "@tool(requires_approval=True)\n"
        "def launch(target: str) -> str:\n"
        '    """Launch something (needs the user\'s approval)."""\n'
        '    return f"launched {target}"\n', encoding="utf-8")
    return d


def test_the_first_hour_with_the_keyboard_alone(qtbot, make_window, ollama_server, ask_tools):
    w = make_window(Settings(ollama_host=ollama_server.url, tools_dirs=[str(ask_tools)]))
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.input, timeout=5000)  # the window opens typing-ready

    # 1. send a message: type, Enter
    ollama_server.script(text_lines(["Hello ", "from the model."]))
    type_text(qtbot, "hello")
    press(qtbot, Qt.Key.Key_Return)
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "Hello from the model."
    qtbot.waitUntil(lambda: focused() is w.input, timeout=3000)  # back in the box for the next message
    first_chat = w.conversation.id

    # the answer is read with Shift+Tab: the messages are on the way back from the box
    reached = tab_to(qtbot, w.chat.findChildren(QWidget, "assistantText")[-1], backwards=True)
    assert reached, "the answer was the box itself?"
    assert_focus_visible(w)
    press(qtbot, Qt.Key.Key_L, CTRL)  # Ctrl+L: back to the box
    assert focused() is w.input

    # 2. Stop a long answer with Esc
    ollama_server.chunk_delay_s = 0.25
    ollama_server.script(text_lines([f"word{i} " for i in range(60)]))
    type_text(qtbot, "a long story")
    press(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: w.busy and "word1" in last_turn_text(w), timeout=10_000)
    press(qtbot, Qt.Key.Key_Escape)
    wait_idle(qtbot, w)
    ollama_server.chunk_delay_s = 0.0
    text = last_turn_text(w)
    assert "word1" in text and "word59" not in text
    assert ConversationStore().load(w.conversation.id).messages[-1].status == "stopped"

    # 3. approve a tool call: Tab from the box to the card's Allow once, Space
    ollama_server.script(tool_call_lines("launch", {"target": "moon"}), text_lines(["Launched."]))
    qtbot.waitUntil(lambda: focused() is w.input, timeout=3000)
    type_text(qtbot, "launch it")
    press(qtbot, Qt.Key.Key_Return)
    card = waiting_card(qtbot, w)
    tab_to(qtbot, card.allow)
    assert_focus_visible(w)
    press(qtbot, Qt.Key.Key_Space)
    wait_idle(qtbot, w)
    assert last_run(w).status == "ok" and last_turn_text(w).endswith("Launched.")

    # 4. a new chat (Ctrl+N), then the first chat again from the history: Ctrl+K, Down to it, Enter
    press(qtbot, Qt.Key.Key_N, CTRL)
    qtbot.waitUntil(lambda: w.conversation.id != first_chat and not w.conversation.messages, timeout=5000)
    press(qtbot, Qt.Key.Key_K, CTRL)
    assert focused() is w.history_panel.search_box
    press(qtbot, Qt.Key.Key_Down)
    chats = w.history_panel.list
    assert focused() is chats
    for _ in range(chats.model().rowCount()):
        if w.history_panel.current_id() == first_chat:
            break
        press(qtbot, Qt.Key.Key_Down)
    assert_focus_visible(w)
    press(qtbot, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: w.conversation.id == first_chat, timeout=5000)
    assert "Hello from the model." in [m.content for m in w.conversation.messages]

    # 5. change a setting: Ctrl+, opens Settings, Ctrl+Tab to Generation, Tab to the temperature, type, Ctrl+S
    press(qtbot, Qt.Key.Key_Comma, CTRL)
    qtbot.waitUntil(lambda: w.settings_dialog is not None and w.settings_dialog.isVisible(), timeout=5000)
    dlg = w.settings_dialog
    qtbot.waitUntil(lambda: dlg.isAncestorOf(QApplication.focusWidget()), timeout=3000)
    for _ in range(dlg.tabs.count()):
        if dlg.tabs.currentWidget().widget() is dlg.generation_page:
            break
        press(qtbot, Qt.Key.Key_Tab, CTRL)
    assert_focus_visible(w)  # the page (its scroll area) has the keyboard, ringed in the dialog too
    temperature = dlg.generation_page.temperature
    tab_to(qtbot, temperature)
    press(qtbot, Qt.Key.Key_A, CTRL)
    type_text(qtbot, "0.35")
    press(qtbot, Qt.Key.Key_S, CTRL)
    qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=5000)
    assert Settings.load()[0].generation.temperature == pytest.approx(0.35)  # saved
    assert w.settings.generation.temperature == pytest.approx(0.35)  # and in use
    qtbot.waitUntil(lambda: w.isAncestorOf(QApplication.focusWidget()), timeout=3000)  # back in the window


def test_the_ring_shows_for_the_keyboard_not_for_a_click(qtbot, make_window):
    w = make_window()
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.input, timeout=5000)
    chip = w.chat_options.findChild(QWidget, "chatJson")
    qtbot.mouseClick(chip, Qt.MouseButton.LeftButton)  # a click: the pointer shows where the user is
    qtbot.waitUntil(lambda: focused() is chip, timeout=3000)
    assert w.focus_ring.target is None and (w.focus_ring.ring is None or not w.focus_ring.ring.isVisible())
    press(qtbot, Qt.Key.Key_Tab)  # the keyboard moves on: now the ring shows where it is
    assert focused() is not chip
    assert_focus_visible(w)


def test_tab_goes_round_the_window_in_reading_order(qtbot, make_window, ollama_server):
    """From the message box: Send, the status bar, the toolbar, the history, the conversation and its messages
    (also those of answers that came after the window was built), the chat's options, the box again."""
    w = make_window(Settings(ollama_host=ollama_server.url))
    w.activateWindow()
    ollama_server.script(text_lines(["Hello ", "there."]))
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.input, timeout=5000)
    type_text(qtbot, "hi")
    press(qtbot, Qt.Key.Key_Return)
    wait_idle(qtbot, w)
    qtbot.waitUntil(lambda: focused() is w.input, timeout=3000)
    regions = [("box", w.composer), ("status", w.statusBar()), ("toolbar", w.toolbar),
               ("history", w.history_dock), ("chat", w.chat), ("options", w.chat_options)]
    seen: list[str] = []
    press(qtbot, Qt.Key.Key_Tab)
    assert focused() is w.send_button  # Tab from the box: Send
    while focused() is not w.input and len(seen) < 60:
        seen.append(next((name for name, r in regions if r is focused() or r.isAncestorOf(focused())), "other"))
        press(qtbot, Qt.Key.Key_Tab)
    assert focused() is w.input, seen
    order = [name for i, name in enumerate(seen) if i == 0 or seen[i - 1] != name]  # each region once, in order
    # (the status bar's Summarise: once a request reported its size; the box again: Attach files, left of the text)
    expected = ["box", "status", "toolbar", "history", "chat", "options", "box"]
    assert order == [r for r in expected if r in order], seen
    assert {"box", "toolbar", "history", "chat", "options"} <= set(order), seen
    press(qtbot, Qt.Key.Key_Backtab, SHIFT)
    assert focused() is w.composer.attach  # Shift+Tab: the Attach button beside the box
    press(qtbot, Qt.Key.Key_Backtab, SHIFT)
    assert focused() is w.chat_options.findChild(QWidget, "chatJson")  # then the option above the box


def test_the_ring_around_the_tool_list_leaves_its_splitter_alone(qtbot, make_window, ollama_server):
    """The tool activity's list sits in a splitter, which takes any child widget for a pane of its own."""
    w = make_window(Settings(ollama_host=ollama_server.url))
    w.activateWindow()
    ollama_server.script(tool_call_lines("today"), text_lines(["It is today."]))
    qtbot.waitUntil(lambda: QApplication.focusWidget() is w.input, timeout=5000)
    type_text(qtbot, "what day")
    press(qtbot, Qt.Key.Key_Return)
    wait_idle(qtbot, w)
    panes = w.sidebar.split.count()
    tab_to(qtbot, w.sidebar.tree)
    assert_focus_visible(w)
    assert w.sidebar.split.count() == panes
    assert w.focus_ring.ring is not None and w.focus_ring.ring.parentWidget() is not w.sidebar.split
