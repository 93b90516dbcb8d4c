"""Importing other apps' chats in the window: a generated ChatGPT export of several hundred chats through the
history panel's import dialog (preview, progress, then search finds a message in it), stopping an import, a
malformed file, and File → Import chats…"""

from __future__ import annotations

import json
import time

import pytest
from PySide6.QtCore import Qt

from desktop_agent.core.store import ConversationStore
from desktop_agent.core.store.porting import Porting
from desktop_agent.ui.history.models import HitRole
from desktop_agent.ui.history.panel import HistoryPanel
from desktop_agent.ui.history.porting import ImportDialog
from tests.helpers.chat_exports import chatgpt_export

CHATS = 400


@pytest.fixture
def store(tmp_path):
    s = ConversationStore(tmp_path / "conversations.sqlite3")
    yield s
    s.close()


@pytest.fixture
def panel(qtbot, store):
    p = HistoryPanel(store)
    qtbot.addWidget(p)
    p.resize(320, 600)
    p.show()
    qtbot.waitExposed(p)
    yield p
    p.tasks.close()
    p.tasks.wait(10)
    p.close()


@pytest.fixture
def export_file(tmp_path):
    data = chatgpt_export(CHATS, seed=7)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path, data


def test_a_chatgpt_export_of_several_hundred_chats_previews_imports_with_progress_and_is_searchable(
        qtbot, panel, store, export_file, tmp_path):
    path, data = export_file
    dialog = panel.import_chat(str(path))
    assert isinstance(dialog, ImportDialog) and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.state == "preview", timeout=60_000)
    messages = dialog.preview.messages
    assert dialog.heading.text() == f"ChatGPT: {CHATS} chats, {messages:,} messages"
    assert f"Will add: {CHATS} new chats ({messages:,} messages in all)." in dialog.details.text()
    assert "have branches" in dialog.details.text()
    assert store.count() == 0  # nothing before the user says so
    dialog.grab().save("/tmp/import-preview.png")

    seen: list[int] = []
    dialog.progress.valueChanged.connect(seen.append)
    with qtbot.waitSignal(panel.conversation_activated, timeout=120_000) as opened:
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
        assert dialog.state == "importing" and dialog.progress.isVisible()
    assert dialog.state == "done" and not dialog.isVisible()
    assert len(seen) > 2 and seen == sorted(seen) and seen[-1] == CHATS  # the bar moved, up to every chat
    assert store.count() == CHATS
    assert opened.args[0] == dialog.result.chat_ids[0]

    # the search finds a message of the export and opens its chat at that message
    panel.search_box.setText("MARKER Q123X0")  # case-insensitive
    qtbot.waitUntil(lambda: panel.search_model.rowCount() > 0, timeout=30_000)
    hits = [panel.search_model.index(r).data(HitRole) for r in range(panel.search_model.rowCount())]
    print(hits)
    assert [(h.title, h.role) for h in hits] == [(data[123]["title"], "user")]
    saved = store.load(hits[0].conversation_id)
    assert any(m.id == hits[0].message_id and "(marker q123x0)" in m.content for m in saved.messages)
    with qtbot.waitSignal(panel.message_activated, timeout=10_000) as hit_opened:
        qtbot.keyClick(panel.search_box, Qt.Key.Key_Return)
    assert hit_opened.args == [hits[0].conversation_id, hits[0].message_id]

    # importing the same file again adds nothing
    again = panel.import_chat(str(path))
    qtbot.waitUntil(lambda: again.state == "nothing", timeout=60_000)
    assert store.count() == CHATS


def test_cancelling_an_import_saves_nothing(qtbot, panel, store, export_file, monkeypatch):
    path, _ = export_file
    real = Porting._new_chat

    def slow_disk(self, *args):  # a slow disk: each chat takes a moment, so Cancel lands mid-import
        time.sleep(0.005)
        return real(self, *args)

    monkeypatch.setattr(Porting, "_new_chat", slow_disk)
    dialog = panel.import_chat(str(path))
    qtbot.waitUntil(lambda: dialog.state == "preview", timeout=60_000)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.progress.value() >= 20, timeout=60_000)
    assert dialog.progress.text().startswith("Chat ") and f"of {CHATS}" in dialog.progress.text()
    dialog.grab().save("/tmp/import-progress.png")
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: dialog.state == "cancelled", timeout=60_000)
    assert dialog.heading.text() == "Import stopped" and dialog.details.text() == "Nothing was imported."
    assert store.count() == 0 and store.read("SELECT count(*) FROM messages") == [(0,)]
    assert store.search("marker") == []


def test_a_malformed_export_imports_nothing_and_names_the_wrong_entry(qtbot, panel, store, export_file, tmp_path):
    _, data = export_file
    broken = data[16]
    key = next(k for k, n in broken["mapping"].items() if n["message"] and n["message"]["author"]["role"] == "user"
               and n["message"]["content"]["content_type"] == "text")
    del broken["mapping"][key]["message"]["author"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    dialog = panel.import_chat(str(path))
    qtbot.waitUntil(lambda: dialog.state == "failed", timeout=60_000)
    title = broken["title"]
    assert f"conversation 17 ('{title}'): message {key} has no author" in dialog.details.text()
    assert "Nothing was imported" in dialog.details.text() and not dialog.import_button.isEnabled()
    assert store.count() == 0


@pytest.mark.usefixtures("clean_keyring_state")
def test_file_menu_imports_and_exports_every_chat(qtbot, make_window, ollama_settings, tmp_path, monkeypatch):
    """File → Import chats… and Export all chats… in the window, as a user starts it (default settings)."""
    from PySide6.QtWidgets import QFileDialog

    w = make_window(ollama_settings)
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=10_000)
    file_menu = w.menuBar().actions()[0].menu()
    texts = [a.text() for a in file_menu.actions() if not a.isSeparator()]
    assert texts[:3] == ["&New chat", "&Import chats…", "E&xport all chats…"]
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(chatgpt_export(5, seed=1)), encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a: (str(path), "")))
    next(a for a in file_menu.actions() if a.text() == "&Import chats…").trigger()
    dialog = w.history_panel.findChild(ImportDialog)
    qtbot.waitUntil(lambda: dialog.state == "preview", timeout=30_000)
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    store = w.history_panel.store
    qtbot.waitUntil(lambda: store.count() == 5, timeout=30_000)
    page = tmp_path / "all.html"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a: (str(page), "")))
    next(a for a in file_menu.actions() if a.text() == "E&xport all chats…").trigger()
    qtbot.waitUntil(lambda: w.statusBar().currentMessage() == f"Exported 5 chats to {page}.", timeout=30_000)
    assert page.read_text(encoding="utf-8").count("<section") == 5
