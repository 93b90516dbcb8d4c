"""The history panel (left dock) and its parts, one job per module:

- :mod:`.panel` — :class:`~.panel.HistoryPanel`, the widget: list, search box, actions, signals;
- :mod:`.models` — the list models (saved chats grouped by day and paged; search results) and their roles;
- :mod:`.delegates` — painting the rows (group headers, chats, search hits with highlighted matches);
- :mod:`.dialogs` — the export / import file dialogs and the delete confirmation.

The main window imports :mod:`.panel` by name after it has shown (start-up stays light).
"""
