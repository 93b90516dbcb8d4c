"""Organising saved chats: pins (pinned chats are listed first) and tags, and the filter of the history list.

:class:`ChatLabels` is the part of :class:`~desktop_agent.core.store.ConversationStore` that keeps the ``chat_pins``
and ``chat_tags`` tables; :class:`ChatFilter` says which chats the history lists (a tag, a model, a time range) and
gives the SQL for it (used by :meth:`ConversationStore.list` and :meth:`ConversationStore.count`).

A tag is one line of text in NFC, at most :data:`MAX_TAG_CHARS` characters, spaces squeezed, without control or
invisible format characters (NUL, zero-width space, bidi overrides); tags the search's folding
(:func:`~desktop_agent.core.store.folding.fold`: case in every script, accents, NFC/NFD) makes the same are the
same tag (:func:`tag_key`; the first spelling is kept).
"""

from __future__ import annotations

import time
import unicodedata
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.errors import ConversationNotFound
from desktop_agent.core.messages import clean_text
from desktop_agent.core.store.database import StoreDatabase, guarded
from desktop_agent.core.store.folding import fold

#: the longest tag
MAX_TAG_CHARS = 40
#: what separates a chat's tags in one SQL value (a character no tag holds)
TAG_SEPARATOR = "\x1f"


#: format characters kept in a tag: the joiners that emoji sequences and Persian or Indic words need
_KEPT_FORMAT = {"\u200c", "\u200d"}


def clean_tag(tag: str) -> str:
    """``tag`` in NFC on one line, without control and invisible format characters, spaces squeezed, cut to
    :data:`MAX_TAG_CHARS`; ValueError when nothing visible is left."""
    text = unicodedata.normalize("NFC", clean_text(str(tag)).replace(TAG_SEPARATOR, " "))
    text = "".join(" " if c.isspace() else c for c in text
                   if c.isspace() or unicodedata.category(c) not in ("Cc", "Cf") or c in _KEPT_FORMAT)
    text = " ".join(text.split())[:MAX_TAG_CHARS].strip()
    if not any(unicodedata.category(c) != "Cf" for c in text):
        raise ValueError("a tag needs some text")
    return text


def tag_key(tag: str) -> str:
    """What makes two tags the same tag: the search's folding of the cleaned tag (``Σίσυφος`` and ``ΣΊΣΥΦΟΣ``,
    NFC and NFD ``é``). The store compares ``fold(tag)`` in SQL, the same function."""
    return fold(clean_tag(tag))


def _key_or_self(tag: str) -> str:
    """:func:`tag_key`, or the folded text as given when it cleans to nothing (it then matches no tag)."""
    try:
        return tag_key(tag)
    except ValueError:
        return fold(tag)


@dataclass(frozen=True)
class ChatFilter:
    """Which chats the history lists: with ``tag``, answered by ``model``, last updated at or after ``since`` and
    before ``until`` (epoch seconds); None = any. An empty filter lists every chat."""

    tag: str | None = None
    model: str | None = None
    since: float | None = None
    until: float | None = None

    @property
    def empty(self) -> bool:
        return self.tag is None and self.model is None and self.since is None and self.until is None

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition on ``conversations c`` (``"1"`` when empty) and its parameters."""
        parts: list[str] = []
        params: list[Any] = []
        if self.tag is not None:
            parts.append("c.id IN (SELECT conversation_id FROM chat_tags WHERE fold(tag) = ?)")
            params.append(_key_or_self(self.tag))
        if self.model is not None:
            parts.append("c.model = ?")
            params.append(self.model)
        if self.since is not None:
            parts.append("c.updated_at >= ?")
            params.append(float(self.since))
        if self.until is not None:
            parts.append("c.updated_at < ?")
            params.append(float(self.until))
        return (" AND ".join(parts) or "1"), params


class ChatLabels(StoreDatabase):
    """Pins and tags of saved chats. Every method raises :class:`StoreError` (ConversationNotFound for a chat that
    is not saved); none changes a chat's ``updated_at`` (its place in the list)."""

    def _require(self, conn: Any, conversation_id: str) -> None:
        if not conn.execute("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)).fetchone():
            raise ConversationNotFound(conversation_id)

    @guarded
    def set_pinned(self, conversation_id: str, pinned: bool) -> None:
        """Pin a chat (listed first, in the order pinned, newest pin first) or unpin it."""
        with self.write() as conn:
            self._require(conn, conversation_id)
            if pinned:
                conn.execute("INSERT OR IGNORE INTO chat_pins (conversation_id, pinned_at) VALUES (?, ?)",
                             (conversation_id, time.time()))
            else:
                conn.execute("DELETE FROM chat_pins WHERE conversation_id = ?", (conversation_id,))

    @guarded
    def is_pinned(self, conversation_id: str) -> bool:
        return bool(self.read("SELECT 1 FROM chat_pins WHERE conversation_id = ?", (conversation_id,)))

    @guarded
    def chat_tags(self, conversation_id: str) -> list[str]:
        """The chat's tags, in alphabetical order (folded: case and accents aside)."""
        rows = self.read("SELECT tag FROM chat_tags WHERE conversation_id = ? ORDER BY fold(tag), tag",
                         (conversation_id,))
        return [r[0] for r in rows]

    @guarded
    def add_tag(self, conversation_id: str, tag: str) -> str:
        """Tag a chat; returns the tag as kept (an existing tag's spelling when it is the same tag: see
        :func:`tag_key`). Raises ValueError for an empty tag."""
        tag = clean_tag(tag)
        key = fold(tag)
        with self.write() as conn:
            self._require(conn, conversation_id)
            known = conn.execute("SELECT tag FROM chat_tags WHERE fold(tag) = ? ORDER BY rowid LIMIT 1",
                                 (key,)).fetchone()
            tag = known[0] if known else tag
            if not conn.execute("SELECT 1 FROM chat_tags WHERE conversation_id = ? AND fold(tag) = ?",
                                (conversation_id, key)).fetchone():
                conn.execute("INSERT INTO chat_tags (conversation_id, tag) VALUES (?, ?)", (conversation_id, tag))
        return tag

    @guarded
    def remove_tag(self, conversation_id: str, tag: str) -> None:
        """Take a tag off a chat (nothing happens when it has not that tag)."""
        with self.write() as conn:
            conn.execute("DELETE FROM chat_tags WHERE conversation_id = ? AND fold(tag) = ?",
                         (conversation_id, _key_or_self(tag)))

    @guarded
    def all_tags(self) -> list[tuple[str, int]]:
        """Every tag in use and how many chats have it, alphabetical (folded: case and accents aside)."""
        rows = self.read("SELECT min(tag), count(DISTINCT conversation_id) FROM chat_tags GROUP BY fold(tag) "
                         "ORDER BY fold(tag)")
        return [(r[0], r[1]) for r in rows]

    @guarded
    def all_models(self) -> list[tuple[str, int]]:
        """Every model that answered in a saved chat (the chat's last) and how many chats, most used first."""
        rows = self.read("SELECT model, count(*) FROM conversations WHERE model IS NOT NULL AND model != '' "
                         "GROUP BY model ORDER BY count(*) DESC, model")
        return [(r[0], r[1]) for r in rows]

    def _forget_labels(self, conn: Any, conversation_id: str) -> None:
        """Delete a chat's pin and tags (the chat is being deleted; the caller holds the write transaction)."""
        conn.execute("DELETE FROM chat_pins WHERE conversation_id = ?", (conversation_id,))
        conn.execute("DELETE FROM chat_tags WHERE conversation_id = ?", (conversation_id,))

