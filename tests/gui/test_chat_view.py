"""The chat view on its own: long chats stay light, markdown and copy buttons, event rendering."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtWidgets import QApplication

from desktop_agent.core.errors import BackendUnreachable
from desktop_agent.core.events import (
    AnswerFinished,
    Notice,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnCancelled,
    TurnFailed,
)
from desktop_agent.core.messages import Conversation, Message, ToolCall
from desktop_agent.ui.agent_runner import TurnEnded, TurnStarted
from desktop_agent.ui.chat.cards import ErrorCard
from desktop_agent.ui.chat.parts import TextPart
from desktop_agent.ui.chat.turn import AssistantTurn, UserBubble
from desktop_agent.ui.chat.view import ChatView, display_blocks
from desktop_agent.ui.event_table import feed


@pytest.fixture
def view(qtbot):
    v = ChatView()
    v.resize(800, 600)
    v.show()
    qtbot.waitExposed(v)
    yield v
    v.close()
    v.deleteLater()


def _long_conversation(n_pairs: int) -> Conversation:
    msgs = []
    for i in range(n_pairs):
        msgs.append(Message(role="user", content=f"question {i}"))
        msgs.append(Message(role="assistant", content=f"answer **{i}**\n\n```python\nprint({i})\n```", model="m"))
    return Conversation(messages=msgs)


def test_two_thousand_messages_load_lazily(qtbot, view):
    """2,000 messages: only the newest page of widgets is created, each with its own small document."""
    conv = _long_conversation(1000)
    t0 = time.perf_counter()
    view.set_conversation(conv)
    elapsed = time.perf_counter() - t0
    assert len(view.blocks) == ChatView.PAGE
    assert len(view._pending) == 2000 - ChatView.PAGE
    assert view.more.isVisible() and "1960 more" in view.more.text()
    docs = [p.document().characterCount() for b in view.blocks if isinstance(b, AssistantTurn)
            for p in b.parts if isinstance(p, TextPart)]
    assert docs and max(docs) < 500  # one small document per message, never one giant one
    assert isinstance(view.blocks[-1], AssistantTurn) and "999" in view.blocks[-1].text_content()
    assert elapsed < 5.0  # generous; it is ~0.2 s here
    # scrolling to the top creates the next page, keeping what the user looked at in place
    qtbot.waitUntil(lambda: view.verticalScrollBar().maximum() > 0, timeout=2000)
    view.verticalScrollBar().setValue(0)
    qtbot.waitUntil(lambda: len(view.blocks) == 2 * ChatView.PAGE, timeout=2000)
    assert "question 960" in view.blocks[0].message.content
    view.more.click()  # the "Show earlier messages" button does the same
    assert len(view.blocks) == 3 * ChatView.PAGE and view.more.isVisible()


def test_last_page_hides_the_load_button(view):
    view.set_conversation(_long_conversation(30))  # 60 messages
    assert view.load_earlier() == 60 - ChatView.PAGE
    assert not view.more.isVisible() and len(view.blocks) == 60
    assert view.load_earlier() == 0


def test_display_blocks_group_a_turn():
    call = ToolCall(id="c1", name="today", arguments={})
    msgs = [
        Message(role="user", content="q"),
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content="Monday", tool_call_id="c1", tool_name="today", tool_status="ok"),
        Message(role="assistant", content="It is Monday."),
        Message(role="user", content="thanks"),
    ]
    assert [(k, len(m)) for k, m in display_blocks(msgs)] == [("user", 1), ("assistant", 3), ("user", 1)]


def test_loaded_turn_shows_tool_marker_status_and_stopped_tag(view):
    call = ToolCall(id="c1", name="get_current_weather", arguments={"location": "Paris"})
    conv = Conversation(messages=[
        Message(role="user", content="weather?"),
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content="Error: timed out", tool_call_id="c1", tool_status="timeout", duration_ms=1000),
        Message(role="assistant", content="Partial", status="stopped"),
    ])
    view.set_conversation(conv)
    turn = view.blocks[-1]
    assert turn.chips["c1"].status == "timeout"
    assert "location=Paris" in turn.chips["c1"].text() and "timed out" in turn.chips["c1"].text()
    assert turn.tag.text() == "Stopped"


def test_code_block_and_message_copy_buttons(qtbot, view):
    feed(view.routes(), TurnStarted(1, "c", "q"))
    feed(view.routes(), TextDelta("Here:\n\n```python\nx = 1\n```\n"))
    feed(view.routes(), AnswerFinished(Message(role="assistant", content="Here:\n\n```python\nx = 1\n```\n")))
    feed(view.routes(), TurnEnded(1, "finished"))
    turn = view.blocks[-1]
    part = next(p for p in turn.parts if isinstance(p, TextPart))
    assert part.codes == ["x = 1"]
    assert 'href="copy:0"' in part.toHtml() or "copy:0" in part.toHtml()
    part.anchorClicked.emit(QUrl("copy:0"))
    assert QApplication.clipboard().text() == "x = 1"
    assert "Copied" in part.toPlainText()
    turn.copy.click()
    assert QApplication.clipboard().text().startswith("Here:")


def test_user_message_copy(view):
    bubble = view.add_user_message("copy me")
    assert isinstance(bubble, UserBubble)
    bubble.copy.click()
    assert QApplication.clipboard().text() == "copy me"


def test_markdown_table_and_highlighting_render(view):
    feed(view.routes(), TurnStarted(1, "c", "q"))
    text = "| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\ndef f():\n    return 1\n```"
    feed(view.routes(), AnswerFinished(Message(role="assistant", content=text)))
    part = next(p for p in view.blocks[-1].parts if isinstance(p, TextPart))
    doc_html = part.toHtml()
    assert "<table" in doc_html
    assert "color:#" in doc_html.replace(" ", "")  # Pygments colours survived into the document


def test_failed_turn_without_text_leaves_only_an_error_card(view):
    view.add_user_message("hi")
    feed(view.routes(), TurnStarted(1, "c", "hi"))
    feed(view.routes(), Notice("rate limited — retrying in 2 s"))
    assert view.live.notice.isVisibleTo(view.live) and "retrying" in view.live.notice.text()
    feed(view.routes(), TurnFailed(BackendUnreachable("http://127.0.0.1:1")))
    feed(view.routes(), TurnEnded(1, "failed"))
    assert [type(b) for b in view.blocks] == [UserBubble, ErrorCard]
    assert view.live is None


def test_notice_is_transient(view):
    """Shared case 20-openai-429-retry-after.json: the 'retrying' notice goes once text arrives."""
    feed(view.routes(), TurnStarted(1, "c", "q"))
    feed(view.routes(), Notice("rate limited — retrying in 2 s"))
    turn = view.live
    assert turn.notice.isVisibleTo(turn)
    feed(view.routes(), TextDelta("Here is your answer."))
    assert not turn.notice.isVisibleTo(turn)


def test_stop_before_any_text_marks_turn_stopped(view):
    feed(view.routes(), TurnStarted(1, "c", "q"))
    feed(view.routes(), ToolCallStarted("c1", "slow", {}))
    feed(view.routes(), ToolCallFinished("c1", "slow", False, "", "cancelled", 5.0, "cancelled"))
    feed(view.routes(), TurnCancelled(None))
    feed(view.routes(), TurnEnded(1, "cancelled"))
    turn = view.blocks[-1]
    assert turn.tag.text() == "Stopped" and turn.chips["c1"].status == "cancelled"


def test_scroll_to_an_old_message_creates_its_page(qtbot, view):
    conv = _long_conversation(1000)
    for i, m in enumerate(conv.messages):
        m.id = i + 1
    view.set_conversation(conv)
    target = view.scroll_to_message(11)  # "question 5", far above the first page
    assert isinstance(target, UserBubble) and target.message.content == "question 5"
    assert view.scroll_to_message(999_999) is None


def test_jump_to_an_old_message_then_back_to_the_end(qtbot, view):
    conv = _long_conversation(1000)
    for i, m in enumerate(conv.messages):
        m.id = i + 1
    view.set_conversation(conv)
    view.scroll_to_message(1001)  # "question 500"
    assert len(view.blocks) == ChatView.PAGE
    assert view.more.isVisible() and view.later.isVisible()
    assert view.load_later() == ChatView.PAGE
    # a new message goes at the end: the newest page is shown again
    view.add_user_message("new one")
    assert not view.later.isVisible()
    assert view.blocks[-1].message.content == "new one"
    assert view.blocks[-2].text_content().startswith("answer **999**")


def _failed_conversation(n_pairs: int = 1) -> Conversation:
    from desktop_agent.core.messages import TurnFailure

    conv = _long_conversation(n_pairs)
    conv.messages.append(Message(role="user", content="and now?"))
    for i, m in enumerate(conv.messages):
        m.id = i + 1
    conv.last_failure = TurnFailure(kind="BackendUnreachable", text="Can't reach Ollama at http://127.0.0.1:1.")
    return conv


def test_a_saved_chat_whose_last_turn_failed_shows_that_error_with_retry(view):
    view.set_conversation(_failed_conversation())
    assert [type(b) for b in view.blocks] == [UserBubble, AssistantTurn, UserBubble, ErrorCard]
    card = view.error_cards()[-1]
    assert card.title.text() == "Can't reach the server" and "127.0.0.1:1" in card.text.text()
    assert list(card.buttons) == ["Retry", "Open settings"] and card.buttons["Retry"].isEnabled()
    clicked = []
    view.error_action.connect(lambda action, c: clicked.append((action.kind, c)))
    card.buttons["Retry"].click()
    assert clicked == [("retry", card)]
    # the retry's turn replaces the card; it does not come back
    feed(view.routes(), TurnStarted(1, "c", None))
    assert not view.error_cards()
    feed(view.routes(), AnswerFinished(Message(role="assistant", content="Back.")))
    feed(view.routes(), TurnEnded(1, "finished"))
    assert not view.error_cards() and isinstance(view.blocks[-1], AssistantTurn)
    view.set_conversation(_long_conversation(1))  # a chat without a failure: no card
    assert not view.error_cards()


def test_the_saved_error_stays_after_the_newest_block_across_a_jump(view):
    conv = _failed_conversation(1000)
    view.set_conversation(conv)
    assert isinstance(view.blocks[-1], ErrorCard) and len(view.blocks) == ChatView.PAGE + 1
    view.scroll_to_message(11)  # a jump to an old page: the newest blocks (and the card) are not shown
    assert not view.error_cards()
    while view.load_later():
        pass
    assert isinstance(view.blocks[-1], ErrorCard) and len(view.error_cards()) == 1
    assert view.blocks[-2].message.content == "and now?"
    view.scroll_to_message(11)
    view.add_user_message("a new message shows the newest page again")  # the card stays above it
    assert isinstance(view.blocks[-2], ErrorCard) and len(view.error_cards()) == 1


def test_blocks_far_from_the_viewport_are_released_and_rebuilt(qtbot, view):
    """Scrolling a long chat to the top does not keep every block built: far ones become placeholders of the
    same height (their widgets freed), and come back when scrolled to again."""
    from desktop_agent.ui.chat.placeholders import Placeholder

    view.set_conversation(_long_conversation(300))  # 600 messages
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=2000)
    for _ in range(40):
        if not view._pending:
            break
        bar.setValue(1 if bar.value() == 0 else 0)
        bar.setValue(0)
        qtbot.wait(5)
    assert not view._pending and len(view.blocks) == 600
    bar.setValue(0)
    qtbot.waitUntil(lambda: isinstance(view.blocks[0], UserBubble), timeout=2000)
    built = [b for b in view.blocks if not isinstance(b, Placeholder)]
    assert len(built) < 200 and isinstance(view.blocks[0], UserBubble)  # the top is shown, the rest released
    last = view.blocks[-1]
    assert isinstance(last, Placeholder) and last.height() > 0
    bar.setValue(bar.maximum())  # back at the end: the newest blocks are rebuilt from their messages
    qtbot.waitUntil(lambda: isinstance(view.blocks[-1], AssistantTurn), timeout=2000)
    assert "299" in view.blocks[-1].text_content()
    assert isinstance(view.blocks[0], Placeholder)


def test_jump_to_a_released_message_rebuilds_it(qtbot, view):
    conv = _long_conversation(100)
    for i, m in enumerate(conv.messages):
        m.id = i + 1
    view.set_conversation(conv)
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=2000)
    view.load_earlier(160)
    qtbot.waitUntil(lambda: any(type(b).__name__ == "Placeholder" for b in view.blocks), timeout=2000)
    target = view.scroll_to_message(1)  # the first question, released (far above)
    assert isinstance(target, UserBubble) and target.message.content == "question 0"


def test_a_tool_chip_shows_an_ampersand_as_it_is(view):
    """A button takes "&" as its shortcut mark: `ls -la && echo done` showed as `ls -la & echo done`. The
    chip's text doubles each "&", which a button draws as one."""
    call = ToolCall(id="c1", name="run_shell_command", arguments={"command": "ls -la && echo done"})
    view.set_conversation(Conversation(messages=[
        Message(role="user", content="list"),
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content="ok", tool_call_id="c1", tool_status="ok", duration_ms=10),
    ]))
    assert "ls -la &&&& echo done" in view.blocks[-1].chips["c1"].text()


def test_the_typing_dots_come_back_while_the_model_works_on_tool_results(view):
    """After a tool result nothing showed that the model was still working (the new-user trial); the dots
    now show until its next text or call."""
    from desktop_agent.core.events import TextDelta, ToolCallFinished, ToolCallStarted
    from desktop_agent.ui.agent_runner import TurnStarted

    feed(view.routes(), TurnStarted(1, "c", "weather?"))
    live = view.live
    assert live.typing.isVisibleTo(live)
    feed(view.routes(), ToolCallStarted("c1", "get_current_weather", {"location": "Paris"}))
    assert not live.typing.isVisibleTo(live)  # the running chip says what happens
    feed(view.routes(), ToolCallFinished("c1", "get_current_weather", True, "sunny", None, 12.0))
    assert live.typing.isVisibleTo(live)
    feed(view.routes(), TextDelta("It is sunny."))
    assert not live.typing.isVisibleTo(live)


@pytest.mark.parametrize("dark", [False, True])
def test_an_answer_s_text_is_drawn_on_the_bubble_s_colour(view, dark):
    """A text view paints its own background (nothing behind it repaints); it painted the palette's base
    colour — white strips on the light grey bubble — where the bubble's colour belongs."""
    from PySide6.QtGui import QColor

    from desktop_agent.ui import theme
    from desktop_agent.ui.chat.parts import TextPart

    app = QApplication.instance()
    original = app.palette()
    try:
        app.setPalette(theme.dark_palette() if dark else theme.light_palette())
        view.restyle()
        view.set_conversation(Conversation(messages=[
            Message(role="user", content="hi"), Message(role="assistant", content="Short line.")]))
        turn = view.blocks[-1]
        part = next(p for p in turn.parts if isinstance(p, TextPart))
        QApplication.processEvents()
        image = turn.grab().toImage()
        spot = part.mapTo(turn, part.rect().center())
        spot.setX(turn.width() - 40)  # right of the short line, inside the text view
        assert image.pixelColor(spot) == QColor(view.ctx.theme.assistant_bubble)
    finally:
        app.setPalette(original)
        view.restyle()


def test_a_chat_opened_right_after_another_shows_none_of_the_first(qtbot, view):
    """Two chats opened back to back, the second before the event loop deleted the first's blocks (a deferred
    delete, which a nested event loop never runs): they are not left on screen over the second's."""
    first = Conversation(messages=[Message(role="user", content="Alpha question"),
                                   Message(role="assistant", content="Alpha answer", model="m")])
    second = Conversation(messages=[Message(role="user", content="Beta question"),
                                    Message(role="assistant", content="Beta answer", model="m")])
    view.set_conversation(first)
    old = list(view.blocks)
    qtbot.waitUntil(lambda: all(w.isVisible() for w in old))
    view.set_conversation(second)
    assert old and not any(w.isVisible() for w in old)
    qtbot.waitUntil(lambda: all(w.isVisible() for w in view.blocks))
