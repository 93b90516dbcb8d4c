"""Search as you type runs off the GUI thread (issue 23): the store is queried on a worker thread, on its own
connection (a save holding the store's lock does not hold up a search), the latest query wins (an older one
still running is stopped, or its late results dropped), and Enter before the results opens the first of them."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import Qt

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.store import ConversationStore
from desktop_agent.ui.history.panel import HistoryPanel


@pytest.fixture
def store(tmp_path):
    s = ConversationStore(tmp_path / "conversations.sqlite3")
    s.add_conversations([
        Conversation(title="Trip", messages=[Message(role="user", content="Plan a trip to Kyoto"),
                                             Message(role="assistant", content="Take the Shinkansen to Kyoto.")]),
        Conversation(title="Bread", messages=[Message(role="user", content="How do I bake sourdough bread?")]),
    ])
    yield s
    s.close()


@pytest.fixture
def panel(qtbot, store):
    p = HistoryPanel(store)
    qtbot.addWidget(p)
    p.resize(300, 560)
    p.show()
    qtbot.waitExposed(p)
    yield p
    p.close()


def _hit_texts(panel: HistoryPanel) -> set[str]:
    return {"".join(t for t, _ in h.parts) for h in panel.search_model.hits}


def test_the_search_runs_off_the_gui_thread(panel, store, qtbot, monkeypatch):
    threads: list[threading.Thread] = []
    search = store.search

    def spying(*args, **kwargs):
        threads.append(threading.current_thread())
        return search(*args, **kwargs)

    monkeypatch.setattr(store, "search", spying)
    panel.search_box.setText("Kyoto")
    qtbot.waitUntil(lambda: panel.search_model.rowCount() == 2, timeout=5000)
    assert threads and all(t is not threading.main_thread() for t in threads)


def test_a_save_holding_the_store_does_not_hold_up_a_search(panel, store, qtbot):
    held, release = threading.Event(), threading.Event()

    def long_write() -> None:
        with store._lock:  # a save in progress (the worker thread writing an answer)
            held.set()
            release.wait(10)

    writer = threading.Thread(target=long_write)
    writer.start()
    try:
        held.wait(5)
        panel.search_box.setText("sourdough")
        qtbot.waitUntil(lambda: panel.search_model.rowCount() == 1, timeout=3000)
    finally:
        release.set()
        writer.join()


def test_the_latest_query_wins_over_an_older_one_that_answers_late(panel, store, qtbot, monkeypatch):
    search = store.search

    def slow_for_kyoto(text, *args, **kwargs):
        if text == "Kyoto":  # the older query: still running when the user typed on
            time.sleep(0.6)
        return search(text, *args, **kwargs)

    monkeypatch.setattr(store, "search", slow_for_kyoto)
    panel.search_box.setText("Kyoto")
    qtbot.waitUntil(lambda: panel.tasks.is_running("search"), timeout=3000)
    panel.search_box.setText("sourdough")
    qtbot.waitUntil(lambda: panel.search_model.rowCount() == 1, timeout=3000)
    assert _hit_texts(panel) == {"How do I bake sourdough bread?"}
    qtbot.wait(900)  # the Kyoto search has answered by now: its results were dropped
    assert _hit_texts(panel) == {"How do I bake sourdough bread?"}


class CancelledOnceRunning(threading.Event):
    """Not set when the search starts; set from the first time the running query looks at it."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks > 1


def test_a_search_cancelled_while_it_runs_stops_and_returns_nothing(tmp_path):
    with ConversationStore(tmp_path / "big.sqlite3") as big:
        big.add_conversations([Conversation(messages=[Message(role="user", content=f"note {i} about Kyoto")])
                               for i in range(3000)])
        assert len(big.search("Ky", limit=100)) == 100  # a two-letter term: the message text is scanned
        cancel = CancelledOnceRunning()
        assert big.search("Ky", limit=100, cancel=cancel) == []
        assert cancel.looks > 1  # stopped by the store while the query ran, not before
        assert len(big.search("Ky", limit=100, cancel=threading.Event())) == 100  # the connection goes on


def test_enter_before_the_results_came_opens_the_first_result(panel, store, qtbot):
    opened: list[tuple[str, int]] = []
    panel.message_activated.connect(lambda cid, mid: opened.append((cid, mid)))
    panel.conversation_activated.connect(lambda cid: opened.append((cid, -1)))
    panel.search_box.setFocus()
    panel.search_box.setText("sourdough")
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Return)  # at once: no result is shown yet
    qtbot.waitUntil(lambda: bool(opened), timeout=3000)
    bread = next(s for s in store.list() if s.title == "Bread")
    assert opened[0][0] == bread.id


def test_clearing_the_box_drops_a_search_still_running(panel, store, qtbot, monkeypatch):
    search = store.search

    def slow(text, *args, **kwargs):
        time.sleep(0.4)
        return search(text, *args, **kwargs)

    monkeypatch.setattr(store, "search", slow)
    panel.search_box.setText("Kyoto")
    qtbot.waitUntil(lambda: panel.tasks.is_running("search"), timeout=3000)
    panel.search_box.clear()
    qtbot.waitUntil(lambda: panel.stack.currentWidget() is panel.list, timeout=3000)
    qtbot.wait(700)
    assert panel.search_model.rowCount() == 0 and panel.stack.currentWidget() is panel.list
