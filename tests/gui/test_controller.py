"""The chat controller and its one event table: events are sorted by type once, by the table; the controller runs
turns and says what changed by signals, with no window at all; start-up runs its stages in order, each timed;
the user's bubble is drawn once."""

from __future__ import annotations

import logging

import pytest
from PySide6.QtCore import QObject

from desktop_agent.core.events import ChatUpdated, MessageAdded, Notice, TextDelta
from desktop_agent.core.messages import Message
from desktop_agent.core.settings import Settings
from desktop_agent.ui.agent_runner import TurnEnded, TurnStarted
from desktop_agent.ui.chat.turn import UserBubble
from desktop_agent.ui.chat.view import ChatView
from desktop_agent.ui.controller import ChatController
from desktop_agent.ui.event_table import EventTable, feed
from desktop_agent.ui.startup import Stage, Startup
from tests.helpers.replies import text_lines


def test_the_table_calls_the_handlers_of_an_events_type_the_owners_last():
    seen: list[str] = []

    class Louder(Notice):
        pass

    table = EventTable([{Notice: lambda ev: seen.append(f"widget {ev.text}")}],
                       last={Notice: lambda ev: seen.append(f"owner {ev.text}"),
                             TextDelta: lambda ev: seen.append(f"owner {ev.text}")})
    table.add(Notice, lambda ev: seen.append(f"second widget {ev.text}"))
    table.route(Notice("a"))
    table.route(Louder("b"))  # a subclass reaches its base's handlers
    table.route(TextDelta("c"))
    table.route(ChatUpdated("id", "t", None, None))  # no handler: nothing happens
    assert seen == ["widget a", "second widget a", "owner a", "widget b", "second widget b", "owner b", "owner c"]


def test_no_widget_sorts_events_itself():
    """Each widget that shows events says which method takes which type; none has a ``handle`` that sorts."""
    from desktop_agent.ui.folder_offer import FolderOffer
    from desktop_agent.ui.server_status import ServerStatus
    from desktop_agent.ui.tool_sidebar import ToolSidebar

    for kind in (ChatView, ToolSidebar, FolderOffer, ServerStatus):
        assert not hasattr(kind, "handle"), kind
        assert callable(kind.routes)


def test_the_users_bubble_is_drawn_once_and_shows_the_saved_message(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    feed(view.routes(), TurnStarted(1, "c", "Capital of France?"))
    [drawn] = [b for b in view.blocks if isinstance(b, UserBubble)]
    saved = Message(role="user", content="Capital of France?")
    feed(view.routes(), MessageAdded(saved))
    [bubble] = [b for b in view.blocks if isinstance(b, UserBubble)]
    assert bubble is drawn and bubble.message is saved  # not dropped and drawn again
    feed(view.routes(), TurnEnded(1, "finished"))
    assert [b for b in view.blocks if isinstance(b, UserBubble)] == [drawn]


def test_the_controller_runs_a_turn_with_no_window(qtbot, ollama_server):
    """The controller needs no window: it runs the turn and says what changed by its signals."""
    ollama_server.script(text_lines(["Par", "is."]))
    owner = QObject()
    ctl = ChatController(owner, settings=Settings(ollama_host=ollama_server.url, ollama_model="llama3.2",
                                                  tools_enabled=False), store=False)
    busy: list[bool] = []
    titles: list[str] = []
    ctl.busy_changed.connect(busy.append)
    ctl.title_changed.connect(titles.append)
    try:
        with qtbot.waitSignal(ctl.turn_ended, timeout=10_000):
            ctl.send("Capital of France?")
        assert busy == [True, False]
        assert titles == ["Capital of France?"]
        assert [m.content for m in ctl.conversation.messages] == ["Capital of France?", "Paris."]
        opened: list[object] = []
        ctl.chat_opened.connect(lambda conv, _decisions: opened.append(conv))
        ctl.new_chat()
        assert opened == [ctl.conversation] and ctl.conversation.messages == []
    finally:
        assert ctl.shutdown()


def test_start_up_runs_its_stages_in_order_each_timed(qtbot, caplog):
    ran: list[str] = []
    stages = [Stage(name, lambda n=name: ran.append(n), together=name == "services")
              for name in ("settings", "services", "store and history", "server check", "warm-up")]
    startup = Startup(stages)
    startup.run_through("services")
    assert ran == ["settings", "services"] and startup.reached("services") and not startup.reached("server check")
    with caplog.at_level(logging.DEBUG, logger="desktop_agent.ui.startup"):
        startup.start()
        startup.start()  # once only
        assert ran == ["settings", "services"]  # the rest comes from the event loop, one stage a turn
        qtbot.waitUntil(lambda: startup.done, timeout=2000)

        def logged() -> list[str]:
            return [r.getMessage() for r in caplog.records if r.name == "desktop_agent.ui.startup"]

        qtbot.waitUntil(lambda: logged()[-1].startswith("start-up: over, the window responds"), timeout=2000)
    assert ran == [s.name for s in stages]
    assert list(startup.timings) == ran and all(ms >= 0 for ms in startup.timings.values())
    assert [line.split(" took ")[0] for line in logged()[:-1]] == [f"start-up: {n}" for n in ran[2:]]


def test_a_stage_background_runs_off_the_gui_thread_with_the_loop_free(qtbot, monkeypatch, tmp_path):
    """A stage's non-Qt work runs on a background thread first; the event loop handles what comes meanwhile
    (a timer fires before the stage's GUI part runs); a background that fails costs only the head start. The
    moment the start is over and the loop is free is written for the bench."""
    import threading

    from PySide6.QtCore import QTimer

    from desktop_agent.ui.startup import RESPONDS_ENV

    mark = tmp_path / "responds"
    monkeypatch.setenv(RESPONDS_ENV, str(mark))
    ran: list[str] = []
    release = threading.Event()

    def slow_background() -> None:
        ran.append("background " + threading.current_thread().name)
        assert release.wait(10)

    def broken_background() -> None:
        raise OSError("no such module")

    stages = [Stage("settings", lambda: ran.append("settings"), background=slow_background),
              Stage("services", lambda: ran.append("services"), together=True),
              Stage("warm-up", lambda: ran.append("warm-up"), background=broken_background)]
    startup = Startup(stages)
    startup.start()
    QTimer.singleShot(0, lambda: ran.append("input"))
    qtbot.waitUntil(lambda: "input" in ran, timeout=5000)  # handled while the background runs
    assert ran[0].startswith("background ") and "MainThread" not in ran[0] and "settings" not in ran
    release.set()
    qtbot.waitUntil(lambda: startup.done and mark.exists(), timeout=5000)
    assert ran[2:] == ["settings", "services", "warm-up"]
    assert float(mark.read_text()) > 0


def test_stages_together_run_in_one_turn_and_a_stage_can_join_later(qtbot):
    ran: list[str] = []
    stages = [Stage(name, lambda n=name: ran.append(n), together=name == "services")
              for name in ("settings", "services", "store and history")]
    startup = Startup(stages)
    startup.add(Stage("application", lambda: ran.append("application"), together=True), after="services")
    startup.start()  # nothing ran yet: the first stage now, in this turn
    assert ran == ["settings", "services", "application"]  # one turn: no input in between
    qtbot.waitUntil(lambda: startup.done, timeout=2000)
    assert ran == ["settings", "services", "application", "store and history"]


@pytest.mark.parametrize("together", [False, True])
def test_a_stage_that_fails_does_not_stop_the_ones_after_it(qtbot, together):
    def broken() -> None:
        raise OSError("disk full")

    ran: list[str] = []
    startup = Startup([Stage("store and history", broken), Stage("joined", lambda: ran.append("joined"),
                                                                   together=together),
                       Stage("server check", lambda: ran.append("check"))])
    with pytest.raises(OSError):  # reported like any uncaught exception (here: to the caller)
        startup.start()
    qtbot.waitUntil(lambda: startup.done and ran == ["joined", "check"], timeout=2000)
    assert startup.reached("store and history")


def test_the_window_starts_in_the_stages_of_the_issue(make_window, qtbot):
    w = make_window()
    assert [s.name for s in w.startup.stages] == ["settings", "services", "store and history", "last chat",
                                                  "server check", "warm-up"]
    qtbot.waitUntil(lambda: w.startup.done, timeout=5000)
    assert list(w.startup.timings) == [s.name for s in w.startup.stages]
