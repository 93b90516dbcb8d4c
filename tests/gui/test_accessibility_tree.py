"""Every control a keyboard can reach has a name a screen reader can say: the test walks Qt's accessibility
tree (:class:`~PySide6.QtGui.QAccessible`) of the main window — with a chat, a saved chat in the history, a
tool call in the sidebar and an approval card waiting — of every page of the Settings dialog, and of the
approval card, and fails on any focusable control without a name, naming its class and objectName.
The chat's messages are read as text: whose message it is in the name, the text in the value."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible

from desktop_agent.core.settings import Settings
from desktop_agent.ui.accessibility import unnamed_controls, walk
from tests.helpers.gui import wait_idle, waiting_card
from tests.helpers.replies import text_lines, tool_call_lines


def _no_unnamed(root) -> int:
    """Assert no unnamed focusable control under ``root``; the number of named focusable ones walked."""
    missing = unnamed_controls(root)
    assert not missing, "focusable controls without an accessible name:\n" + "\n".join(map(str, missing))
    return sum(1 for iface, _ in walk(root) if iface.state().focusable and not iface.state().invisible)


def test_the_window_with_a_card_waiting_has_no_unnamed_control(qtbot, make_window, ollama_server, tools_dir):
    w = make_window(Settings(ollama_host=ollama_server.url, tools_dirs=[str(tools_dir)]))
    ollama_server.script(text_lines(["Hello ", "there."]))
    w.send("hi")
    wait_idle(qtbot, w)
    ollama_server.script(tool_call_lines("delete_everything", {"path": "/tmp/x"}), text_lines(["Done."]))
    w.send("delete it")
    card = waiting_card(qtbot, w)
    qtbot.waitUntil(lambda: w.history_panel is not None and w.history_panel.list.model().rowCount() > 0,
                    timeout=5000)
    assert _no_unnamed(w) > 20  # the whole window: toolbar, chips, messages, card, sidebar row, history rows
    assert _no_unnamed(card) >= 5  # its buttons, the scope, the reason
    names = {iface.text(QAccessible.Text.Name) for iface, _ in walk(card)}
    assert {"Allow once delete_everything", "Deny delete_everything"} <= names
    for button in card.buttons.values():  # what each answer does, beyond its name
        assert QAccessible.queryAccessibleInterface(button).text(QAccessible.Text.Description), button.text()
    card.deny.click()
    wait_idle(qtbot, w)


def test_every_settings_page_has_no_unnamed_control(qtbot, make_window, tools_dir):
    from PySide6.QtWidgets import QTabWidget

    w = make_window(Settings(tools_dirs=[str(tools_dir)]))  # tools of every kind (one declares none)
    w.open_settings()
    qtbot.waitUntil(lambda: w.settings_dialog is not None and w.settings_dialog.isVisible(), timeout=5000)
    dlg = w.settings_dialog
    tools = dlg.tools_page.tool_list.tree
    qtbot.waitUntil(lambda: bool(tools.findItems("slow_op", Qt.MatchFlag.MatchExactly)), timeout=15_000)
    pages = 0
    for index in range(dlg.tabs.count()):
        dlg.tabs.setCurrentIndex(index)
        qtbot.waitUntil(lambda: dlg.tabs.currentWidget().isVisible(), timeout=3000)
        inner = [t for t in dlg.tabs.currentWidget().findChildren(QTabWidget) if t.isVisible()]
        for tabs in inner or [None]:  # a page's own sections (Tools: installed tools, rules …), each shown
            for sub in range(tabs.count() if tabs else 1):
                if tabs:
                    tabs.setCurrentIndex(sub)
                    qtbot.waitUntil(lambda t=tabs: t.currentWidget().isVisible(), timeout=3000)
                assert _no_unnamed(dlg) > 3, (dlg.tabs.tabText(index), tabs.tabText(sub) if tabs else "")
                pages += 1
    assert pages > dlg.tabs.count()
    dlg.reject()


def test_a_rendered_answer_is_read_with_whose_it_is(qtbot, make_window, ollama_server):
    w = make_window(Settings(ollama_host=ollama_server.url))
    ollama_server.script(text_lines(["It is **4**.\n\n", "- one\n- two"]))
    w.send("What is 2+2?")
    wait_idle(qtbot, w)
    texts = {}
    for iface, _ in walk(w.chat):
        obj = iface.object()
        if obj is not None and obj.objectName() in ("userText", "assistantText"):
            texts[iface.text(QAccessible.Text.Name)] = iface.text(QAccessible.Text.Value)
            assert iface.state().focusable
    assert texts.get("Your message") == "What is 2+2?"
    assert "It is 4." in texts.get("Assistant message", "") and "two" in texts["Assistant message"]


def test_the_walk_names_an_icon_only_button_without_a_name(qtbot):
    from PySide6.QtWidgets import QPushButton, QVBoxLayout, QWidget

    from desktop_agent.ui import icons

    box = QWidget()
    qtbot.addWidget(box)
    lay = QVBoxLayout(box)
    named, bare = QPushButton(icons.icon("settings"), ""), QPushButton(icons.icon("quit"), "")
    named.setAccessibleName("Settings")
    bare.setObjectName("quitIcon")
    lay.addWidget(named)
    lay.addWidget(bare)
    box.show()
    qtbot.waitExposed(box)
    assert [str(u) for u in unnamed_controls(box)] == ["Button QPushButton#quitIcon in QWidget"]


def test_an_error_card_and_a_thinking_part_have_no_unnamed_control(qtbot, make_window, ollama_server):
    from tests.servers.ollama import HttpError

    w = make_window(Settings(ollama_host=ollama_server.url))
    ollama_server.script(text_lines(["Four."], thinking="Two and two make four."))
    w.send("2+2?")
    wait_idle(qtbot, w)
    ollama_server.script(HttpError(404, {"error": "model 'llama3.2' not found, try pulling it first"}))
    w.send("and 3+3?")
    wait_idle(qtbot, w)
    qtbot.waitUntil(lambda: bool(w.chat.error_cards()), timeout=10_000)
    assert _no_unnamed(w.chat) > 4  # the error card's actions, the thinking toggle, messages, copy buttons
