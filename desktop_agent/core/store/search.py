"""Full-text search over saved messages and chat titles: what text is indexed, query terms, the queries,
snippets.

Each message's searchable text (:func:`searchable_text`) is in ``message_text``; its folded copy
(:mod:`.folding`: case- and accent-insensitive) in ``message_folded`` is indexed by the FTS5 table
``message_fts`` (trigram tokenizer, see :mod:`.schema`). Titles (at most :data:`~.titles.MAX_TITLE_CHARS`
characters, one row per chat) are matched by scanning their folded copies (``conversations.folded_title``).
:func:`find_matches` and :func:`find_title_matches` run a search under the store's lock; :func:`to_hits`
cuts the snippets afterwards, outside it.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_agent.core.messages import Message
from desktop_agent.core.store.folding import fold, fold_with_map, original_span
from desktop_agent.core.store.titles import NEW_CHAT_TITLE

#: Highlight marks in :attr:`SearchHit.snippet`.
MARK_START, MARK_END = "«", "»"
#: :attr:`SearchHit.role` of a hit in a chat's title.
TITLE_ROLE = "title"
#: Characters of context a snippet keeps around the first match.
SNIPPET_CHARS = 64
# private highlight marks: replaced by spaces in the indexed text, so no saved text can contain them
_HL_START, _HL_END = "\x02", "\x03"


@dataclass(frozen=True)
class SearchHit:
    """One message, or one chat title, matching a search.

    ``parts`` is the snippet as ``(text, highlighted)`` pieces (for rich rendering); ``snippet`` is the
    same text on one line with each match between ``«`` and ``»``; ``…`` marks cut text. A title hit
    (:attr:`in_title`) has ``role`` :data:`TITLE_ROLE`, the id of the chat's first message, the chat's last
    update as ``created_at``, and the title as its snippet.
    """

    conversation_id: str
    message_id: int
    title: str
    role: str
    created_at: float
    model: str | None
    parts: tuple[tuple[str, bool], ...]
    #: the message is on the branch its chat shows (False: an earlier version of an answer or a question)
    on_shown_branch: bool = True

    @property
    def in_title(self) -> bool:
        """The chat's title matched (not one of its messages)."""
        return self.role == TITLE_ROLE

    @property
    def snippet(self) -> str:
        return "".join(f"{MARK_START}{t}{MARK_END}" if hl else t for t, hl in self.parts)


#: One message found by :func:`find_matches`: message id, conversation id, chat title, role, created_at,
#: model, searchable text.
Match = tuple[int, str, str, str, float, str | None, str]
#: One chat found by :func:`find_title_matches`: conversation id, title, updated_at, model, id of its first message.
TitleMatch = tuple[str, str, float, str | None, int]

def contains_all(text: str, terms: list[str]) -> bool:
    """Whether ``text`` contains every term, case- and accent-insensitive (as the queries match)."""
    folded = fold(text)
    return all(fold(t) in folded for t in terms)


def _like(term: str) -> str:
    """A LIKE pattern matching ``term`` anywhere (``%``, ``_`` and ``\\`` in it escaped; ESCAPE '\\')."""
    return "%" + re.sub(r"([%_\\])", r"\\\1", term) + "%"


def searchable_text(message: Message) -> str:
    """The text indexed for ``message``: its content plus the name and arguments of each tool call, and the names
    of its attached files."""
    parts = [message.content, *(a.name for a in message.attachments)]
    for call in message.tool_calls:
        parts.append(f"{call.name} {call.arguments_json() if call.arguments else (call.raw_arguments or '')}")
    text = "\n".join(p for p in parts if p)
    # (FTS5 stops reading a text at a NUL: everything after one would be unsearchable)
    return text.replace(_HL_START, " ").replace(_HL_END, " ").replace("\x00", " ")


def parse_query(text: str) -> list[str]:
    """Search terms: ``"quoted phrases"`` and whitespace-separated words, NULs dropped."""
    text = text.replace("\x00", " ")
    terms = []
    for quoted, word in re.findall(r'"([^"]*)"|(\S+)', text):
        term = (quoted if quoted else word).strip()
        if term and term != '"':
            terms.append(term)
    return terms


def _fts_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def snippet_parts(text: str, terms: list[str], width: int = SNIPPET_CHARS) -> tuple[tuple[str, bool], ...]:
    """A snippet around the first match of any term, every match in the window highlighted (matched like the
    search: case- and accent-insensitive; the highlights cover the original characters, in NFC)."""
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    folded, where = fold_with_map(text)
    wanted = sorted({f for f in (fold(t) for t in terms) if f}, key=len, reverse=True)
    spans: list[tuple[int, int]] = []
    if wanted:
        pattern = re.compile("|".join(re.escape(t) for t in wanted))
        for m in pattern.finditer(folded):
            start, end = original_span(text, where, m.start(), m.end())
            if spans and start < spans[-1][1]:
                continue
            spans.append((start, end))
    if not spans:
        return ((text[:width] + ("…" if len(text) > width else ""), False),)
    start = max(0, min(spans[0][0] - width // 3, len(text) - width))
    end = min(len(text), start + width)
    parts: list[tuple[str, bool]] = [("…", False)] if start > 0 else []
    pos = start
    for a, b in spans:
        if b <= start or a >= end:
            continue
        a, b = max(a, start), min(b, end)
        if a > pos:
            parts.append((text[pos:a], False))
        parts.append((text[a:b], True))
        pos = b
    if pos < end:
        parts.append((text[pos:end], False))
    if end < len(text):
        parts.append(("…", False))
    return tuple(parts)


def find_matches(conn: sqlite3.Connection, terms: list[str], limit: int) -> list[Match]:
    """The ``limit`` most recently saved messages containing every term (``terms`` not empty), newest first.

    Matching is by substring, case- and accent-insensitive (:func:`.folding.fold`). Terms of 3+ characters use
    the FTS5 index; shorter ones are matched by scanning the message text. Run it under the store's lock.
    """
    folded = [f for f in (fold(t) for t in terms) if f]
    if not folded:
        return []
    long_terms = [t for t in folded if len(t) >= 3]
    short_terms = [t for t in folded if len(t) < 3]
    if long_terms:
        # the index (of the folded text) finds the rows; short terms are checked on those rows only. The
        # snippet is cut in Python (snippet_parts, linear in the text): FTS5's snippet() grows with the square
        # of the matches in a message and took 77 s for "xxx" in a 100 kB tool result.
        where = ["message_fts MATCH ?"] + ["folded LIKE ? ESCAPE '\\'"] * len(short_terms)
        params = [" AND ".join(_fts_phrase(t) for t in long_terms), *(_like(t) for t in short_terms)]
        sql = f"SELECT rowid FROM message_fts WHERE {' AND '.join(where)} ORDER BY rowid DESC LIMIT ?"
    else:
        # terms shorter than a trigram can't use the index: scan the folded text, newest first (LIKE: faster
        # than instr, which counts characters; both sides are folded, so its ASCII case rule changes nothing)
        where = ["folded LIKE ? ESCAPE '\\'"] * len(short_terms)
        params = [_like(t) for t in short_terms]
        sql = f"SELECT id FROM message_folded WHERE {' AND '.join(where)} ORDER BY id DESC LIMIT ?"
    ids = [r[0] for r in conn.execute(sql, (*params, int(limit))).fetchall()]
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    texts = dict(conn.execute(f"SELECT id, text FROM message_text WHERE id IN ({marks})", ids))
    info = {
        r[0]: r[1:]
        for r in conn.execute(
            "SELECT m.id, m.conversation_id, c.title, m.role, m.created_at, m.model "
            "FROM messages m JOIN conversations c ON c.id = m.conversation_id "
            f"WHERE m.id IN ({marks})",
            ids,
        )
    }
    return [(mid, *info[mid], texts.get(mid, "")) for mid in ids if mid in info]


def find_title_matches(conn: sqlite3.Connection, terms: list[str], limit: int) -> list[TitleMatch]:
    """The ``limit`` most recently updated chats whose title contains every term (``terms`` not empty),
    newest first — matched like messages (substring, case- and accent-insensitive). Run it under the store's lock.

    Left out: a default title (the chat's first user message) when that message contains every term too —
    its message hit shows the same text; the placeholder title of a chat without a user message; a chat
    without messages (nothing to open)."""
    folded = [f for f in (fold(t) for t in terms) if f]
    if not folded:
        return []
    where = " AND ".join(["instr(c.folded_title, ?) > 0"] * len(folded))
    rows = conn.execute(
        "SELECT c.id, c.title, c.updated_at, c.model, c.title_is_custom, "
        "(SELECT m.id FROM messages m WHERE m.conversation_id = c.id ORDER BY m.id LIMIT 1), "
        "(SELECT t.text FROM messages m JOIN message_text t ON t.id = m.id WHERE m.conversation_id = c.id "
        " AND m.role = 'user' AND trim(m.content) != '' ORDER BY m.id LIMIT 1) "
        f"FROM conversations c WHERE {where} AND (c.title_is_custom OR c.title != ?) "
        "ORDER BY c.updated_at DESC, c.id DESC LIMIT ?",
        (*folded, NEW_CHAT_TITLE, int(limit)),
    ).fetchall()
    return [
        (cid, title, updated_at, model, first_id)
        for cid, title, updated_at, model, custom, first_id, first_user_text in rows
        if first_id is not None and (custom or not contains_all(first_user_text or "", terms))
    ]


def to_hits(matches: list[Match], terms: list[str], titles: Sequence[TitleMatch] = (),
            on_shown: set[int] | None = None) -> list[SearchHit]:
    """The matches (messages, then chat titles) as :class:`SearchHit` with their snippets, newest first (a
    title hit dated by its chat's last update); ``on_shown``: the ids of the messages on the branches the chats
    show — hits there come before hits on other branches (None: every message is)."""
    hits = [
        SearchHit(conv_id, mid, title, role, created_at, model, snippet_parts(text, terms),
                  on_shown is None or mid in on_shown)
        for mid, conv_id, title, role, created_at, model, text in matches
    ]
    hits += [
        SearchHit(conv_id, first_id, title, TITLE_ROLE, updated_at, model, snippet_parts(title, terms))
        for conv_id, title, updated_at, model, first_id in titles
    ]
    hits.sort(key=lambda h: (h.on_shown_branch, h.created_at, h.message_id), reverse=True)
    return hits
