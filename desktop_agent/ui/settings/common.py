"""Small pieces the Settings pages share: form rows with their notes, status labels, human-readable sizes
and times, pydantic messages as inline text."""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QBoxLayout, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_agent.core.settings import Settings
from desktop_agent.ui.i18n import translate

_CODE = re.compile(r"`([^`\n]+)`")


def human_size(size: int | None) -> str:
    """Bytes as Ollama shows them (decimal units): ``2019393189`` → ``"2.0 GB"``; None → ``""``."""
    if size is None:
        return ""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(value) < 1000 or unit == "TB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"  # pragma: no cover


def human_time(iso: str | None, now: datetime | None = None) -> str:
    """An ISO 8601 time as ``"3 minutes ago"`` / ``"2 days ago"`` / ``"2024-05-01"``; the raw text when
    it cannot be parsed; ``""`` for None."""
    if not iso:
        return ""
    try:
        when = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    if seconds < 0:
        return when.astimezone().strftime("%Y-%m-%d %H:%M")
    if seconds < 60:
        return translate("Common", "just now")
    if seconds < 30 * 86400:
        if seconds < 3600:
            n = int(seconds // 60)
            return (translate("Common", "%n minute ago", None, n) if n == 1
                    else translate("Common", "%n minutes ago", None, n))
        if seconds < 86400:
            n = int(seconds // 3600)
            return (translate("Common", "%n hour ago", None, n) if n == 1
                    else translate("Common", "%n hours ago", None, n))
        n = int(seconds // 86400)
        return translate("Common", "%n day ago", None, n) if n == 1 else translate("Common", "%n days ago", None, n)
    return when.astimezone().strftime("%Y-%m-%d")


def field_message(msg: str) -> str:
    """pydantic's message as inline text: ``Value error, x`` → ``x``; ``Input should be`` → ``Must be``."""
    msg = msg.removeprefix("Value error, ")
    if msg.startswith("Input should be"):
        msg = translate("Common", "Must be") + msg[len("Input should be") :]
    return msg[:1].upper() + msg[1:]


def parse_seconds(edit: QLineEdit, example: str) -> tuple[float | None, str | None]:
    """The number of seconds typed in ``edit`` (a decimal comma is read too) and None, or None and the
    message to show under it."""
    text = edit.text().strip().replace(",", ".")
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):  # "inf"/"nan" parse, but are no number of seconds
        return None, translate("Common", "Must be a number of seconds, e.g. {example}").format(example=example)
    return value, None


class ActionLineEdit(QLineEdit):
    """A line edit whose Enter runs its own action (``activated``) instead of the dialog's Save."""

    activated = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt's name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.activated.emit()
            event.accept()
            return
        super().keyPressEvent(event)


def form_row(form: QFormLayout, text: str, field: QWidget | QBoxLayout, *notes: QWidget,
             buddy: QWidget | None = None, left: bool = False) -> QWidget:
    """Add a form row: ``field`` with its (usually hidden) notes right under it, so that a hidden
    error takes no space. The label's mnemonic focuses ``buddy`` (default: ``field``)."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(3)
    if isinstance(field, QWidget):
        if left:
            layout.addWidget(field, 0, Qt.AlignmentFlag.AlignLeft)
        else:
            layout.addWidget(field)
    else:
        layout.addLayout(field)
    for note in notes:
        layout.addWidget(note)
    if text:
        label = QLabel(text)
        target = buddy or (field if isinstance(field, QWidget) else None)
        if target is not None:
            label.setBuddy(target)
        form.addRow(label, box)
    else:
        form.addRow(QLabel(""), box)  # keep the field column aligned
    return box


def set_text(label: QLabel, text: str) -> None:
    """Put ``text`` in ``label``; a name written in backticks (`ollama serve`, Ollama's `format`) is shown
    as code, without the backticks. Other text stays plain (no markup is read from it)."""
    if _CODE.search(text):
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setText(_CODE.sub(lambda m: f"<code>{m.group(1)}</code>", html.escape(text, quote=False)))
    else:
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setText(text)


def hint_label(text: str) -> QLabel:
    """A greyed, word-wrapped hint beside or under a field (a hint, not a value); backticks show as code."""
    label = QLabel()
    label.setWordWrap(True)
    label.setEnabled(False)
    set_text(label, text)
    return label


def note_label(accessible: str) -> QLabel:
    """A hidden, word-wrapped, selectable label for an error, a warning or a status under a field."""
    label = QLabel()
    label.setWordWrap(True)
    label.setVisible(False)
    label.setAccessibleName(accessible)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def show(label: QLabel, text: str | None, kind: str = "info") -> None:
    """Show ``text`` in ``label`` coloured by ``kind`` (ok / warn / err / info), or hide it. A command
    written in backticks (an error's "Start it with `ollama serve`") is shown as code, without them."""
    if not text:
        label.clear()
        label.setVisible(False)
        return
    from desktop_agent.ui import theme

    t = theme.current(label.palette())
    color = {"ok": t.ok, "warn": t.warn, "err": t.err}.get(kind)
    mark = {"ok": "✓ ", "warn": "⚠ ", "err": "✗ "}.get(kind, "")
    label.setStyleSheet(f"color: {color};" if color else "")
    set_text(label, mark + text)
    label.setProperty("kind", kind)
    label.setVisible(True)


def on_delete_key(widget: QWidget, slot: Callable[[], None]) -> None:
    """The Delete key on ``widget`` runs ``slot`` (remove a key, delete a model)."""
    shortcut = QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), widget)
    shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
    shortcut.activated.connect(slot)


class SettingsPage(QWidget):
    """One tab of the Settings dialog. It owns its widgets and their state and talks to the dialog only
    through this interface (and its own signals); it never reaches into another page.

    - :meth:`load`: show ``settings``; :meth:`values`: the edited values as dotted keys
      (``{"ollama.host": ...}``); :meth:`input_errors`: fields that cannot even be read (text in a
      number field), by dotted key;
    - :meth:`show_errors`: show the messages for this page's fields (``errors`` by dotted key, of every
      page) under them; returns where each shown one is ("Host (Ollama tab)"), for the dialog's summary.
    - ``changed`` is emitted on every edit: the dialog validates again.
    """

    changed = Signal()

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        #: (dotted keys, the label showing their error, where the field is) — the label shows the first
        #: error among its keys
        self.fields: list[tuple[tuple[str, ...], QLabel, str]] = []

    def load(self, settings: Settings) -> None:
        raise NotImplementedError

    def values(self) -> dict[str, Any]:
        raise NotImplementedError

    def input_errors(self) -> dict[str, str]:
        return {}

    def owns(self, key: str) -> bool:
        return any(key in keys for keys, _label, _where in self.fields)

    def show_errors(self, errors: dict[str, str]) -> list[str]:
        marked: list[str] = []
        for keys, label, where in self.fields:
            message = next((errors[k] for k in keys if k in errors), None)
            show(label, message, "err")
            if message:
                marked.append(where)
        return marked


def show_cleaned_url(label: QLabel, typed: str, clean: Callable[[str], str]) -> str | None:
    """Under a URL field: "Using <url>" when ``clean`` (:mod:`desktop_agent.core.urls`) makes something else of
    what was typed (a pasted endpoint, a trailing slash, no scheme), else nothing. Returns the URL that will be
    used (None while it is not a URL: the field's error says why)."""
    try:
        url = clean(typed)
    except ValueError:
        show(label, None)
        return None
    show(label, translate("Common", "Using {url}").format(url=url) if url != typed.strip() else None, "info")
    return url

