"""Chat files: exporting chats and importing them from other apps (no Qt, nothing here touches the database).

- :mod:`.model` — what an import reads: chats as trees of messages keyed by the source's ids;
- :mod:`.reading` — reading a file: which app wrote it, its chats, the wrong entry of a malformed file;
- :mod:`.ours` — our JSON format (``docs/chat-json.md``): versioned, every branch, read back losslessly;
- :mod:`.seed` — the chat script's ``chat_<model>_<time>.json``;
- :mod:`.chatgpt` — ChatGPT's ``conversations.json``; :mod:`.openwebui` — Open WebUI's export;
- :mod:`.markdown_doc`, :mod:`.html_doc` — a chat for people: Markdown, a standalone HTML page.

Saving and exporting from the store: :mod:`desktop_agent.core.store.porting`.
"""
