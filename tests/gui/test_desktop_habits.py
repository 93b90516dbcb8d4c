"""Habits of desktop apps (issue 25): Help → Keyboard shortcuts lists every key the window answers to; Up in the
empty message box brings back the last message; a relaunch reopens the last chat where it was; status-bar
messages stay beside the permanent widgets, elided with the whole text in the tooltip. Real windows, the
default data folder, a real Ollama-protocol server."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut

from desktop_agent.core import paths
from desktop_agent.core.messages import Conversation
from desktop_agent.core.store import ConversationStore
from tests.helpers.chats import long_chat
from tests.helpers.gui import wait_idle


def _native(keys: str) -> str:
    return QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)


def test_keyboard_shortcuts_lists_every_key_of_the_window(make_window, qtbot):
    from desktop_agent.ui.help import ShortcutsDialog

    w = make_window()
    qtbot.waitUntil(lambda: w.history.panel is not None, timeout=5000)
    help_menu = next(a.menu() for a in w.menuBar().actions() if a.text() == "&Help")
    opener = next(a for a in help_menu.actions() if "Keyboard shortcuts" in a.text())
    assert opener.shortcut() == QKeySequence("Ctrl+/")

    dialog = ShortcutsDialog(w)
    listed = {(k.keys, k.does) for k in dialog.keys}
    listed_keys = {k.keys for k in dialog.keys}
    # every action and shortcut of the window with a key is listed, with what it does
    for action in w.findChildren(QAction):
        for seq in action.shortcuts():
            if action.text():
                assert seq.toString(QKeySequence.SequenceFormat.NativeText) in listed_keys, action.text()
    for shortcut in w.findChildren(QShortcut):
        if not shortcut.key().isEmpty():
            assert shortcut.whatsThis(), "a shortcut without a description cannot be listed"
            assert (shortcut.key().toString(QKeySequence.SequenceFormat.NativeText), shortcut.whatsThis()) in listed
    # the ones the issue names, and the message box's and Settings' own keys
    for keys in ("Ctrl+N", "Ctrl+L", "Ctrl+,", "F2", "Esc", "Ctrl+K", "Ctrl+H", "Enter", "Shift+Enter", "Up",
                 "Ctrl+S"):
        assert _native(keys) in listed_keys, keys
    assert (_native("Esc"), "Stop the answer") in listed
    areas = {k.area for k in dialog.keys}
    assert {"Anywhere in the window", "Message box", "History", "Settings"} <= areas
    # shown as a list grouped by area
    assert dialog.tree.topLevelItemCount() == len(areas)
    rows = sum(dialog.tree.topLevelItem(i).childCount() for i in range(dialog.tree.topLevelItemCount()))
    assert rows == len(dialog.keys)
    dialog.close()


def test_ctrl_k_searches_the_chats(make_window, qtbot):
    w = make_window()
    qtbot.waitUntil(lambda: w.history.panel is not None, timeout=5000)
    w.history.dock.hide()
    w.activateWindow()
    w.input.setFocus()
    qtbot.keyClick(w.input, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert w.history.dock.isVisible()
    qtbot.waitUntil(lambda: w.history.panel.search_box.hasFocus(), timeout=3000)


def test_up_in_the_empty_box_brings_back_the_last_message(make_window, qtbot, ollama_settings):
    w = make_window(ollama_settings.updated({"tools.enabled": False}))
    w.send("What is the capital of France?")
    wait_idle(qtbot, w)
    w.send("And of Italy?")
    wait_idle(qtbot, w)
    assert w.input.toPlainText() == ""
    qtbot.keyClick(w.input, Qt.Key.Key_Up)
    assert w.input.toPlainText() == "And of Italy?"
    assert w.input.textCursor().position() == len("And of Italy?")  # at the end, to go on typing
    # Up in a box with text moves the cursor as usual: nothing is replaced
    w.input.setPlainText("draft")
    qtbot.keyClick(w.input, Qt.Key.Key_Up)
    assert w.input.toPlainText() == "draft"


def test_up_in_a_new_chat_does_nothing(make_window, qtbot):
    w = make_window()
    qtbot.keyClick(w.input, Qt.Key.Key_Up)
    assert w.input.toPlainText() == ""


def _saved_long_chat(turns: int = 60) -> Conversation:
    conversation = Conversation(title="A long chat", messages=long_chat(turns, tool_every=0))
    with ConversationStore(paths.store_file()) as store:
        store.add_conversations([conversation])
        return store.load(conversation.id)


def test_a_relaunch_reopens_the_last_chat_where_it_was(make_window, qtbot):
    saved = _saved_long_chat()
    w = make_window()
    w.open_conversation(saved.id)
    qtbot.waitUntil(lambda: w.conversation.id == saved.id, timeout=5000)
    early = saved.messages[20]  # question 10
    w.chat.scroll_to_message(early.id)
    qtbot.waitUntil(lambda: w.chat.top_message_id() is not None, timeout=5000)
    top = w.chat.top_message_id()
    w.close()

    again = make_window()
    assert again.conversation.id == saved.id
    assert again.windowTitle().startswith("A long chat")

    def shows_the_same_place() -> bool:
        block = next(b for b in again.chat.blocks if any(m.id == top for m in getattr(b, "source", ("", []))[1]))
        view = again.chat.viewport()
        where = QRect(block.mapTo(view, block.rect().topLeft()), block.size())
        return view.rect().intersects(where)

    qtbot.waitUntil(shows_the_same_place, timeout=5000)


def test_a_relaunch_after_reading_to_the_end_shows_the_end(make_window, qtbot):
    saved = _saved_long_chat(30)
    w = make_window()
    w.open_conversation(saved.id)
    qtbot.waitUntil(lambda: w.conversation.id == saved.id, timeout=5000)
    assert w.chat.top_message_id() is None  # following the end
    w.close()
    again = make_window()
    assert again.conversation.id == saved.id
    bar = again.chat.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=5000)


def test_a_relaunch_after_new_chat_or_a_deleted_chat_starts_a_new_chat(make_window, qtbot):
    saved = _saved_long_chat(5)
    w = make_window()
    w.open_conversation(saved.id)
    qtbot.waitUntil(lambda: w.conversation.id == saved.id, timeout=5000)
    w.new_chat()
    w.close()
    assert make_window().conversation.messages == []

    w = make_window()
    w.open_conversation(saved.id)
    qtbot.waitUntil(lambda: w.conversation.id == saved.id, timeout=5000)
    w.close()
    with ConversationStore(paths.store_file()) as store:
        store.delete(saved.id)
    fresh = make_window()
    assert fresh.conversation.messages == []
    assert fresh.conversation.id != saved.id


def test_a_message_begun_during_start_up_is_not_put_into_the_old_chat(make_window, qtbot, ollama_settings):
    from PySide6.QtCore import QSettings

    from desktop_agent.ui.main_window import MainWindow
    from desktop_agent.ui.window_state import save_place

    saved = _saved_long_chat(5)
    save_place(QSettings(str(paths.config_dir() / "window.ini"), QSettings.Format.IniFormat), saved.id, None)
    w = MainWindow(ollama_settings.updated({"tools.enabled": False}), check_server=False)
    try:
        w.send("typed before the window was ready")  # the services are built, the store is not open yet
        assert not w.ready
        w.show()
        qtbot.waitUntil(lambda: w.ready, timeout=5000)
        wait_idle(qtbot, w)
        assert w.conversation.id != saved.id
        assert w.conversation.messages[0].content == "typed before the window was ready"
    finally:
        w.close()
        w.deleteLater()


def test_a_long_status_message_is_elided_beside_the_context_meter(make_window, qtbot):
    w = make_window(size=(900, 700))
    sb = w.statusBar()
    text = "The model server at http://localhost:11434 did not answer in time; " * 6
    sb.showMessage(text, 10_000)
    line = sb.line
    qtbot.waitUntil(lambda: line.isVisible() and line.width() > 0, timeout=3000)
    assert sb.currentMessage() == " ".join(text.split())
    assert line.elided() and line.text().endswith("…")
    assert line.toolTip() == sb.currentMessage()
    for permanent in (w.context_meter, w.backend_label, w.server_label):
        if permanent.isVisible():
            assert line.geometry().right() < permanent.geometry().left(), permanent.objectName()
    # a short message is shown whole, with no tooltip; the timeout clears it
    sb.showMessage("Saved.", 50)
    assert line.text() == "Saved." and line.toolTip() == ""
    qtbot.waitUntil(lambda: sb.currentMessage() == "", timeout=3000)
    w.statusBar().grab().save(str(paths.data_dir() / "status.png"))


def test_an_actions_text_is_listed_without_its_mnemonic_in_either_language():
    from desktop_agent.ui.help import _plain

    assert _plain("&New chat") == "New chat" and _plain("&Settings…") == "Settings"
    assert _plain("新建对话(&N)") == "新建对话" and _plain("设置(&S)…") == "设置"  # the CJK way
    assert _plain("Tom && Jerry") == "Tom & Jerry"
