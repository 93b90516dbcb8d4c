"""Organising the history: pin a chat (listed first, under Pinned), tag chats from the context menu's Tags, and filter
the list by tag, model and date — real widgets offscreen over a real ConversationStore."""

from __future__ import annotations

import datetime as dt

import pytest

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.store import ConversationStore
from desktop_agent.ui.history.models import KindRole, SummaryRole
from desktop_agent.ui.history.panel import HistoryPanel

TODAY = dt.date(2026, 6, 15)


def at(days_ago: float, hour: int = 12) -> float:
    day = TODAY - dt.timedelta(days=days_ago)
    return dt.datetime(day.year, day.month, day.day, hour).timestamp()


def chat(text: str, when: float, model: str) -> Conversation:
    return Conversation(model=model, backend="ollama", created_at=when, updated_at=when, messages=[
        Message(role="user", content=text, created_at=when),
        Message(role="assistant", content=f"About {text}", model=model, created_at=when)])


@pytest.fixture
def store(tmp_path):
    s = ConversationStore(tmp_path / "conversations.sqlite3")
    s.add_conversations([chat("Fix the login bug", at(0, 9), "qwen3"), chat("Holiday plans", at(2), "llama3.2"),
                         chat("Refactor the parser", at(10), "qwen3"), chat("Old poem", at(90), "llama3.2")])
    yield s
    s.close()


@pytest.fixture
def panel(qtbot, store):
    p = HistoryPanel(store, today=lambda: TODAY)
    qtbot.addWidget(p)
    p.resize(320, 600)
    p.show()
    qtbot.waitExposed(p)
    yield p
    p.close()


def rows(p: HistoryPanel) -> list[str]:
    """The list as shown: "# group" headers and chat titles."""
    out = []
    for r in range(p.model.rowCount()):
        idx = p.model.index(r)
        out.append(f"# {idx.data()}" if idx.data(KindRole) == "header" else idx.data(SummaryRole).title)
    return out


def ids(store) -> dict[str, str]:
    return {s.title: s.id for s in store.list(limit=100)}


def test_a_pinned_chat_is_listed_first_and_unpinned_goes_back(panel, store):
    assert rows(panel)[:2] == ["# Today", "Fix the login bug"]
    panel.select(ids(store)["Refactor the parser"])
    panel.labels.update()
    assert panel.labels.pin_action.text() == "&Pin to top"
    panel.labels.pin_action.trigger()
    assert rows(panel)[:4] == ["# Pinned", "Refactor the parser", "# Today", "Fix the login bug"]
    assert panel.current_id() == ids(store)["Refactor the parser"]  # still selected
    assert store.is_pinned(panel.current_id()) and panel.labels.pin_action.text() == "Un&pin"
    panel.labels.pin_action.trigger()
    assert rows(panel)[0] == "# Today" and "# Pinned" not in rows(panel)


def test_tags_from_the_menu_and_filtering_by_tag_model_and_date(panel, store, qtbot, monkeypatch):
    chats = ids(store)
    panel.select(chats["Fix the login bug"])
    panel.labels.fill_tags()
    new = [a for a in panel.labels.tags_menu.actions() if a.text() == "&New tag…"]
    assert len(new) == 1  # no tag in use yet: only New tag…
    from PySide6.QtWidgets import QInputDialog

    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("  work ", True))
    new[0].trigger()
    assert store.chat_tags(chats["Fix the login bug"]) == ["work"]
    panel.select(chats["Refactor the parser"])
    panel.labels.fill_tags()
    work = next(a for a in panel.labels.tags_menu.actions() if a.text() == "work")
    assert not work.isChecked()
    work.trigger()  # the tag in use, ticked on this chat too
    assert store.chat_tags(chats["Refactor the parser"]) == ["work"]
    summary = store.summary(chats["Refactor the parser"])
    assert summary.tags == ("work",)

    f = panel.filter_row
    f.fill_menu()
    tag_menu, model_menu, date_menu = (a.menu() for a in f.menu.actions())
    assert [a.text() for a in tag_menu.actions()] == ["Any", "work (2)"]
    assert [a.text() for a in model_menu.actions()] == ["Any", "llama3.2 (2)", "qwen3 (2)"]
    tag_menu.actions()[1].trigger()
    assert [r for r in rows(panel) if not r.startswith("#")] == ["Fix the login bug", "Refactor the parser"]
    assert f.label.full_text() == "#work" and f.clear_button.isVisible()
    assert panel.count_label.text() == "2 chats"
    f.fill_menu()
    date_menu = f.menu.actions()[2].menu()
    next(a for a in date_menu.actions() if a.text() == "Last 7 days").trigger()
    assert [r for r in rows(panel) if not r.startswith("#")] == ["Fix the login bug"]
    assert f.label.full_text() == "#work · Last 7 days"
    f.set_filter(model="llama3.2")  # nothing has all three
    assert panel.model.rowCount() == 0 and panel.empty_label.text() == "No chat matches the filter."
    f.clear_button.click()
    assert len([r for r in rows(panel) if not r.startswith("#")]) == 4 and not f.clear_button.isVisible()
    f.set_filter(model="llama3.2", period="older")
    assert [r for r in rows(panel) if not r.startswith("#")] == ["Old poem"]
    # a tag taken off: the filtered list follows
    f.set_filter(model=None, period="any", tag="work")
    panel.labels.set_tag(chats["Fix the login bug"], "work", False)
    assert [r for r in rows(panel) if not r.startswith("#")] == ["Refactor the parser"]


def test_a_chat_saved_goes_to_the_top_of_the_dated_chats_under_the_pinned_ones(panel, store):
    chats = ids(store)
    panel.labels.set_pinned(chats["Old poem"], True)
    assert rows(panel)[:4] == ["# Pinned", "Old poem", "# Today", "Fix the login bug"]
    conv = store.load(chats["Refactor the parser"])
    msg = Message(role="user", content="one more thing")
    conv.messages.append(msg)
    store.add_message(conv, msg)  # saved now: today, newest
    panel.note_saved(chats["Refactor the parser"])
    assert rows(panel) == ["# Pinned", "Old poem", "# Today", "Refactor the parser", "Fix the login bug",
                           "# Previous 7 days", "Holiday plans"]
    new = Conversation(messages=[Message(role="user", content="A brand new chat")])
    store.add_message(new, new.messages[0])
    panel.note_saved(new.id)
    assert rows(panel)[:4] == ["# Pinned", "Old poem", "# Today", "A brand new chat"]
    assert panel.model.total == 5
    conv = store.load(chats["Old poem"])  # the pinned chat gets a message: it stays where it is
    msg = Message(role="user", content="another verse")
    conv.messages.append(msg)
    store.add_message(conv, msg)
    panel.note_saved(chats["Old poem"])
    assert rows(panel)[:3] == ["# Pinned", "Old poem", "# Today"]
