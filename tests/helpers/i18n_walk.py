"""Walk a widget tree for the texts a user sees or hears (text, tooltip, placeholder, window title, accessible name
and description, actions, menus, tab and header labels) and find those left in English under a translated UI."""

from __future__ import annotations

import re
from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDockWidget,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTableWidget,
    QTextEdit,
    QTreeWidget,
    QWidget,
)

#: genuine non-words a Chinese UI shows as they are: product and protocol names, formats, keys, units
ALLOWED_WORDS = {
    "ollama", "openai", "mcp", "api", "json", "http", "https", "url", "pyside6", "python", "desktop", "agent",
    "markdown", "stdio", "streamable", "ctrl", "shift", "enter", "esc", "alt", "tab", "del", "delete", "gil", "qwen",
    "llama", "latest", "mistral", "small", "claude", "github", "npx", "uvx", "git", "shell", "num_ctx", "think",
    "format", "gpt", "mini", "bearer", "authorization", "find_tools", "tool", "timeout_s", "localhost", "env",
    "desktop_agent_theme", "openai_api_key", "ollama_host", "pdf", "csv",
    "chatgpt", "webui", "open", "code", "cursor", "zed", "conversations", "jsonc",  # apps and their files
    "oauth", "mcpb", "dxt",  # a protocol, bundle formats
    "english",  # a language named in itself (Settings → Appearance → Language)
}
_STRIP = [
    re.compile(r"https?://\S+"),  # URLs
    re.compile(r"`[^`]*`"),  # code
    re.compile(r"<code>.*?</code>"),  # code, as rich text
    re.compile(r"@[\w./-]+"),  # packages: @modelcontextprotocol/server-filesystem
    re.compile(r"~?/[\w./~-]+|\.[\w./~-]*/[\w./~-]+"),  # paths: ~/Documents, /usr/bin, ./x
    re.compile(r"<[^>]+>"),  # rich-text tags
    re.compile(r"\b\w+(?:[_:.=]\w+)+\b"),  # identifiers: tool and model names, key=value
    re.compile(r"\b(?:Ctrl|Shift|Alt)\+\S+"),  # shortcuts
    re.compile(r"\S*\*\S*"),  # file patterns: chat_*.json
    re.compile(r"Model Context Protocol"),  # a name
]
_WORD = re.compile(r"[A-Za-z]{3,}")


def english_left(text: str, allowed: Iterable[str] = ()) -> list[str]:
    """The English words of ``text`` that a translation should have replaced (none for a non-word)."""
    text = re.sub(r"&(?=\w)", "", text)  # mnemonics: Open&AI
    for pattern in _STRIP:
        text = pattern.sub(" ", text)
    ok = ALLOWED_WORDS | {a.lower() for a in allowed}
    return [w for w in _WORD.findall(text) if w.lower() not in ok]


def _texts(widget: QWidget) -> Iterable[tuple[str, str]]:
    yield "accessibleName", widget.accessibleName()
    yield "accessibleDescription", widget.accessibleDescription()
    yield "toolTip", widget.toolTip()
    if widget.isWindow() or isinstance(widget, QDockWidget):
        yield "windowTitle", widget.windowTitle()
    if isinstance(widget, (QLabel, QAbstractButton)):
        yield "text", widget.text()
    if isinstance(widget, (QLineEdit, QPlainTextEdit, QTextEdit)):
        yield "placeholderText", widget.placeholderText()
    if isinstance(widget, QGroupBox):
        yield "title", widget.title()
    if isinstance(widget, QMenu):
        yield "title", widget.title()
    if isinstance(widget, QTabBar):
        for i in range(widget.count()):
            yield f"tab {i}", widget.tabText(i)
            yield f"tab {i} toolTip", widget.tabToolTip(i)
    if isinstance(widget, QComboBox) and not widget.isEditable():
        for i in range(widget.count()):
            yield f"item {i}", widget.itemText(i)
    if isinstance(widget, QHeaderView) and widget.orientation() == Qt.Orientation.Horizontal and widget.model():
        for section in range(widget.count()):
            yield f"header {section}", str(widget.model().headerData(section, Qt.Orientation.Horizontal) or "")
    if isinstance(widget, QTreeWidget):
        items = [widget.topLevelItem(i) for i in range(widget.topLevelItemCount())]
        for item in items:
            for col in range(widget.columnCount()):
                if col in (widget.property("i18n_content_columns") or ()):
                    continue  # what a tool or the user wrote: arguments, descriptions
                yield f"row {col}", item.text(col)
                yield f"row {col} toolTip", item.toolTip(col)
    if isinstance(widget, QTableWidget):
        for row in range(widget.rowCount()):
            for col in range(widget.columnCount()):
                item = widget.item(row, col)
                if item is not None:
                    yield f"cell {row},{col}", item.text()
                    yield f"cell {row},{col} toolTip", item.toolTip()
    for action in widget.actions():
        yield "action text", action.text()
        yield "action toolTip", action.toolTip() if action.toolTip() != action.text().replace("&", "") else ""


def untranslated(roots: Iterable[QWidget], allowed: Iterable[str] = (), names: Iterable[str] = ()) -> list[str]:
    """``class objectName property: 'text'`` of every text under ``roots`` with English words left; ``allowed``:
    more words that are names, ``names``: whole texts that are names (a product's)."""
    allowed = list(allowed)
    whole = set(names)
    found: list[str] = []
    seen: set[int] = set()
    for root in roots:
        for widget in [root, *root.findChildren(QWidget)]:
            if id(widget) in seen:
                continue
            seen.add(id(widget))
            for prop, text in _texts(widget):
                if text in whole:
                    continue
                words = english_left(text or "", allowed)
                if words:
                    found.append(f"{type(widget).__name__} {widget.objectName()!r} {prop}: {text!r}")
        for action in root.findChildren(QAction):
            for prop, text in (("QAction text", action.text()), ("QAction toolTip", action.toolTip())):
                if english_left(text or "", allowed):
                    found.append(f"{prop}: {text!r}")
    return sorted(set(found))
