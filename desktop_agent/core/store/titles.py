"""Chat titles: the placeholder of a chat without a user message yet, the length limit, one-line text."""

from __future__ import annotations

import re
from collections.abc import Callable

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


_FORK_MARK = re.compile(r"\s*\(fork(?: \d+)?\)$")


def fork_base(title: str) -> str:
    """``title`` without a fork mark at its end ("Trip (fork 2)" → "Trip")."""
    return _FORK_MARK.sub("", title).strip() or NEW_CHAT_TITLE


def fork_title(title: str, taken: Callable[[str], bool]) -> str:
    """The title of a chat forked from one titled ``title``: "Trip (fork)", else "Trip (fork 2)", "(fork 3)" …
    — the first that ``taken(title)`` says no chat has yet (a fork of a fork counts on from its original)."""
    base = fork_base(title)
    n = 1
    while True:
        mark = " (fork)" if n == 1 else f" (fork {n})"
        room = MAX_TITLE_CHARS - len(mark)
        candidate = (base if len(base) <= room else base[: room - 1].rstrip() + "…") + mark
        if not taken(candidate):
            return candidate
        n += 1


def title_for(conversation: Conversation, message: Message) -> str:
    """The default title of ``conversation`` once ``message`` is saved into it (its first user message)."""
    title = conversation.default_title()
    if title == NEW_CHAT_TITLE:
        title = Conversation(messages=[message]).default_title()
    return title
