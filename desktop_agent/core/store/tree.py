"""Branches: a chat is a tree of messages, and shows one branch of it.

Each message row has a ``parent_id`` (None for a first message); a regenerated answer or an edited message is a
new child of the same parent — a sibling of the one it replaces. ``conversations.leaf_id`` is the last message
of the branch shown: :meth:`ConversationStore.load` returns the path from the root to it as
``Conversation.messages`` (the branch continued by the next turn) and, for each shown message that has
siblings, their ids (``Conversation.siblings``).

:class:`Branches` holds the store's operations on the tree: switch the branch shown
(:meth:`Branches.switch_branch`, :meth:`Branches.show_branch_to`), list siblings, delete a branch, fork a chat from
any message. Saving a message under a given parent is :meth:`ConversationStore.add_message` (``parent_id``).
"""

from __future__ import annotations

import sqlite3
import time
import uuid

from desktop_agent.core.errors import StoreError
from desktop_agent.core.store.database import StoreDatabase, guarded
from desktop_agent.core.store.folding import fold
from desktop_agent.core.store.schema import MESSAGE_COLUMNS
from desktop_agent.core.store.titles import fork_title


def branch(parents: dict[int, int | None], leaf: int | None) -> list[int]:
    """The ids from the root to ``leaf`` (``parents``: id → parent id of every message of a chat). A missing
    leaf (none saved, or gone) is the newest message; a parent link that leads nowhere ends the path there."""
    if leaf not in parents:
        leaf = max(parents) if parents else None
    path: list[int] = []
    seen: set[int] = set()
    node = leaf
    while node is not None and node in parents and node not in seen:
        seen.add(node)
        path.append(node)
        node = parents[node]
    path.reverse()
    return path


def children_of(parents: dict[int, int | None]) -> dict[int | None, list[int]]:
    """id → ids of its children, oldest first (key None: the first messages)."""
    children: dict[int | None, list[int]] = {}
    for mid in sorted(parents):
        children.setdefault(parents[mid], []).append(mid)
    return children


def siblings_of(parents: dict[int, int | None], shown: list[int]) -> dict[int, list[int]]:
    """For each id of ``shown`` with siblings: all of them (itself included), oldest first."""
    children = children_of(parents)
    out = {}
    for mid in shown:
        group = children.get(parents[mid], [])
        if len(group) > 1:
            out[mid] = group
    return out


def latest_leaf(children: dict[int | None, list[int]], start: int) -> int:
    """The end of the branch through ``start`` that was written to last: of the messages below ``start`` (or
    ``start`` itself) that nothing follows, the one saved last (ids grow as messages are saved) — the branch
    the user last continued there, not merely the newest child at every step."""
    leaves: list[int] = []
    todo = [start]
    while todo:
        node = todo.pop()
        kids = children.get(node)
        if kids:
            todo.extend(kids)
        else:
            leaves.append(node)
    return max(leaves)


def shown_paths(conn: sqlite3.Connection, conversation_ids: set[str]) -> dict[str, list[int]]:
    """For each chat: the ids of the branch it shows, root first."""
    out = {}
    for cid in conversation_ids:
        parents = dict(conn.execute("SELECT id, parent_id FROM messages WHERE conversation_id = ?", (cid,)))
        row = conn.execute("SELECT leaf_id FROM conversations WHERE id = ?", (cid,)).fetchone()
        out[cid] = branch(parents, row[0] if row else None)
    return out


class Branches(StoreDatabase):
    """The tree operations of :class:`~desktop_agent.core.store.ConversationStore` (see the module docstring)."""

    #: messages of chats or branches deleted through this store: saving into them does nothing
    _deleted_message_ids: set[int]

    def _parents(self, conn: sqlite3.Connection, conversation_id: str) -> dict[int, int | None]:
        return dict(conn.execute("SELECT id, parent_id FROM messages WHERE conversation_id = ?", (conversation_id,)))

    def _chat_of(self, conn: sqlite3.Connection, message_id: int) -> str:
        row = conn.execute("SELECT conversation_id FROM messages WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            raise StoreError(f"Message {message_id} is not in the chat history (it was deleted).")
        return str(row[0])

    @guarded
    def switch_branch(self, message_id: int) -> int:
        """Show the branch through ``message_id``: below it, the branch written to last (see
        :func:`latest_leaf`: flipping back to an edited message's first version shows the branch continued
        there, not the newest child at every step). Returns the id of
        that branch's last message (the chat's new ``leaf_id``); load the chat again to get its messages.
        Raises :class:`StoreError` when the message is gone."""
        with self._lock, self.write() as conn:
            cid = self._chat_of(conn, message_id)
            leaf = latest_leaf(children_of(self._parents(conn, cid)), message_id)
            conn.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (leaf, cid))
        return leaf

    @guarded
    def show_branch_to(self, message_id: int) -> None:
        """Show the branch that ends at ``message_id`` (what follows it on any branch is kept, not shown) — e.g.
        a question whose answer is being regenerated. Raises :class:`StoreError` when the message is gone."""
        with self._lock, self.write() as conn:
            cid = self._chat_of(conn, message_id)
            conn.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (message_id, cid))

    @guarded
    def siblings(self, message_id: int) -> list[int]:
        """The ids of the messages with the same parent as ``message_id`` (itself included), oldest first;
        ``[]`` when it is gone."""
        with self._lock:
            row = self.conn.execute(
                "SELECT conversation_id, parent_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                return []
            rows = self.conn.execute(
                "SELECT id FROM messages WHERE conversation_id = ? AND parent_id IS ? ORDER BY id", (row[0], row[1])
            ).fetchall()
        return [r[0] for r in rows]

    @guarded
    def delete_branch(self, message_id: int) -> list[int]:
        """Delete ``message_id`` and every message after it in the tree (its descendants), with their search
        entries; the tool-call audit keeps its rows. When the branch shown was among them, the chat shows the
        newest remaining sibling's branch, else the branch ending at the parent. Returns the ids deleted
        (``[]`` when the message is gone already)."""
        with self._lock, self.write() as conn:
            row = conn.execute(
                "SELECT conversation_id, parent_id FROM messages WHERE id = ?", (message_id,)
            ).fetchone()
            if row is None:
                return []
            cid, parent = row
            parents = self._parents(conn, cid)
            children = children_of(parents)
            doomed: list[int] = []
            todo = [message_id]
            while todo:
                node = todo.pop()
                doomed.append(node)
                todo.extend(children.get(node, []))
            leaf = conn.execute("SELECT leaf_id FROM conversations WHERE id = ?", (cid,)).fetchone()[0]
            for start in range(0, len(doomed), 500):
                chunk = doomed[start : start + 500]
                marks = ",".join("?" * len(chunk))
                conn.execute(f"DELETE FROM message_text WHERE id IN ({marks})", chunk)
                conn.execute(f"DELETE FROM messages WHERE id IN ({marks})", chunk)
            gone = set(doomed)
            if leaf is None or leaf in gone or leaf not in parents:
                rest = [s for s in children.get(parent, []) if s not in gone]
                remaining = {k: v for k, v in children.items() if k not in gone}
                new_leaf = latest_leaf(remaining, rest[-1]) if rest else parent
                conn.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (new_leaf, cid))
            conn.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (time.time(), cid))
            self._deleted_message_ids.update(doomed)
        return sorted(doomed)

    @guarded
    def fork(self, message_id: int) -> str:
        """A new chat holding the branch from the first message to ``message_id`` (copies; same options and
        model; titled "<title> (fork)", "(fork 2)" … to tell it apart), showing it; returns its id. The chat forked
        from is unchanged."""
        with self._lock, self.write() as conn:
            cid = self._chat_of(conn, message_id)
            path = branch(self._parents(conn, cid), message_id)
            new_id = uuid.uuid4().hex
            now = time.time()
            old = conn.execute("SELECT title FROM conversations WHERE id = ?", (cid,)).fetchone()
            title = fork_title(old[0] if old else "", lambda t: conn.execute(
                "SELECT 1 FROM conversations WHERE title = ? LIMIT 1", (t,)).fetchone() is not None)
            conn.execute(
                "INSERT INTO conversations (id, title, title_is_custom, backend, model, created_at, updated_at, "
                "folded_title) SELECT ?, ?, 1, backend, model, ?, ?, ? FROM conversations WHERE id = ?",
                (new_id, title, now, now, fold(title), cid),
            )
            conn.execute(
                "INSERT INTO chat_options (conversation_id, options) "
                "SELECT ?, options FROM chat_options WHERE conversation_id = ?", (new_id, cid),
            )
            parent: int | None = None
            for mid in path:
                cur = conn.execute(
                    f"INSERT INTO messages (conversation_id, {MESSAGE_COLUMNS}, parent_id) "
                    f"SELECT ?, {MESSAGE_COLUMNS}, ? FROM messages WHERE id = ?", (new_id, parent, mid),
                )
                copy = int(cur.lastrowid or 0)
                conn.execute("INSERT INTO message_text (id, text) SELECT ?, text FROM message_text WHERE id = ?",
                             (copy, mid))
                conn.execute("INSERT INTO message_folded (id, folded) SELECT ?, folded FROM message_folded "
                             "WHERE id = ?", (copy, mid))
                conn.execute("INSERT INTO message_attachments (message_id, position, sha256, name) "
                             "SELECT ?, position, sha256, name FROM message_attachments WHERE message_id = ?",
                             (copy, mid))
                parent = copy
            conn.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (parent, new_id))
        return new_id

    @guarded
    def leaf_id(self, conversation_id: str) -> int | None:
        """The last message of the branch the chat shows (None: no messages)."""
        with self._lock:
            parents = self._parents(self.conn, conversation_id)
            row = self.conn.execute("SELECT leaf_id FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
        path = branch(parents, row[0] if row else None)
        return path[-1] if path else None
