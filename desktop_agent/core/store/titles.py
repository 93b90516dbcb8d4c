"""Chat titles: the placeholder of a chat without a user message yet, the length limit, one-line text."""

from __future__ import annotations

from desktop_agent.core.messages import Conversation, Message

NEW_CHAT_TITLE = "New chat"
#: A title (renamed or imported) is cut to this many characters.
MAX_TITLE_CHARS = 200


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) made one space, stripped."""
    return " ".join(text.split())


def clip_title(title: str) -> str:
    """``title`` cut to :data:`MAX_TITLE_CHARS` characters (ending in ``…`` when cut)."""
    if len(title) > MAX_TITLE_CHARS:
        return title[: MAX_TITLE_CHARS - 1].rstrip() + "…"
    return title


def title_for(conversation: Conversation, message: Message) -> str:
    """The default title of ``conversation`` once ``message`` is saved into it (its first user message)."""
    title = conversation.default_title()
    if title == NEW_CHAT_TITLE:
        title = Conversation(messages=[message]).default_title()
    return title
