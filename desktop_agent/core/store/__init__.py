"""The chat history: saved conversations in one SQLite file.

:class:`ConversationStore` is the only code that touches saved conversations. The file is
:func:`desktop_agent.core.paths.store_file` — ``<user data dir>/conversations.sqlite3`` (stdlib
:mod:`sqlite3`, WAL journal, ``synchronous=FULL``). The package, one job per module:

- :mod:`.schema` — the tables, :data:`~.schema.MIGRATIONS` and the schema version;
- :mod:`.opening` — opening the file: header probe, ``PRAGMA quick_check``, moving a damaged or newer
  database aside, the pre-migration backup, migrating, writing a deleted file back;
- :mod:`.database` — the connection shared by the worker and GUI threads: its lock, short write
  transactions, ``sqlite3`` errors turned into :class:`~desktop_agent.core.errors.StoreError`;
- :mod:`.conversations` — :class:`ConversationStore`: save, update, list, load, rename, delete;
- :mod:`.tree` — branches: the chat as a tree of messages, the branch shown, switching, deleting, forking;
- :mod:`.folding` — case- and accent-folding of searched text (every script, NFC = NFD);
- :mod:`.labels` — pins and tags of chats, and the history list's filter (:class:`~.labels.ChatFilter`);
- :mod:`.search` — full-text search (query terms, the FTS5 index, snippets, :class:`SearchHit`);
- :mod:`.porting` — export (JSON with every branch, Markdown, HTML; one chat or all) and import (once per
  source chat and message: importing again adds only what is new; stopped or failed, nothing stays) — the
  formats themselves are in :mod:`desktop_agent.core.porting`;
- :mod:`.chatfiles` — writing a chat file atomically;
- :mod:`.titles` — chat titles (default title, length limit).

The store's errors (``StoreError`` and its subclasses) are in :mod:`desktop_agent.core.errors`.
"""

from desktop_agent.core.store.conversations import ConversationStore, ConversationSummary
from desktop_agent.core.store.search import SearchHit

__all__ = ["ConversationStore", "ConversationSummary", "SearchHit"]
