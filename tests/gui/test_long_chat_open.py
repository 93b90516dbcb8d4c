"""Opening a long saved chat builds what the view shows first; the rest of its page follows after the frame."""

from __future__ import annotations

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.ui.chat.placeholders import Placeholder
from desktop_agent.ui.chat.turn import AssistantTurn
from desktop_agent.ui.chat.view import ChatView


def _long_conversation(n_pairs: int) -> Conversation:
    msgs = []
    for i in range(n_pairs):
        msgs.append(Message(role="user", content=f"question {i}"))
        body = "\n".join(f"line {k} of answer {i}, long enough to wrap in the chat column" for k in range(12))
        msgs.append(Message(role="assistant", content=f"answer **{i}**\n\n{body}", model="m"))
    return Conversation(messages=msgs)


def test_a_long_chat_opens_with_only_the_newest_blocks_built(qtbot):
    view = ChatView()
    view.resize(900, 700)
    view.show()
    qtbot.waitExposed(view)
    try:
        view.set_conversation(_long_conversation(1000))
        assert len(view.blocks) == ChatView.PAGE  # the page is there: placeholders stand in for most of it
        built = [b for b in view.blocks if not isinstance(b, Placeholder)]
        assert 1 <= len(built) <= 8 and built == view.blocks[-len(built):]  # the newest ones, at the bottom
        assert isinstance(view.blocks[-1], AssistantTurn) and "999" in view.blocks[-1].text_content()
        assert all(b.height() > 20 for b in view.blocks)  # each placeholder as tall as its text would be
        bar = view.verticalScrollBar()
        qtbot.waitUntil(lambda: bar.maximum() > 0 and bar.value() == bar.maximum(), timeout=3000)
        # after the first frame the blocks near the viewport are built; the view stays at the bottom
        qtbot.waitUntil(lambda: sum(not isinstance(b, Placeholder) for b in view.blocks) > len(built), timeout=3000)
        qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=3000)
        # scrolling up builds the placeholders it reaches (placeholders.settle; see test_chat_view)
        first = view.blocks[0]
        assert isinstance(first, Placeholder)
        bar.setValue(first.y() + 1)
        qtbot.waitUntil(lambda: not isinstance(view.blocks[0], Placeholder), timeout=3000)
    finally:
        view.close()
        view.deleteLater()
