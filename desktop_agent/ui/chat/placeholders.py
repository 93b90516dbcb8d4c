"""Long chats stay light: blocks far from the viewport are released to placeholders, rebuilt when they near.

A block the view made from saved messages (:meth:`ChatView._make_block <.view.ChatView._make_block>`) records
them (``block.source``). Once it is more than :data:`KEEP_SCREENS` viewport heights away from what is shown,
:func:`settle` swaps it for a :class:`Placeholder` of the same height holding those messages — its widgets,
documents and layouts are freed — and swaps a placeholder back for a rebuilt block when it comes that close
again. Blocks of the running session (the live turn, error cards) have no ``source`` and always stay. The
scroll bar keeps its range, so scrolling through a released part looks the same.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QScrollArea, QVBoxLayout, QWidget

from desktop_agent.core.messages import Message

#: built blocks are kept within this many viewport heights above and below the shown part
KEEP_SCREENS = 2.0

Source = tuple[str, list[Message]]


class Placeholder(QWidget):
    """Stands in for a released block: as tall as it was, holding what rebuilds it."""

    def __init__(self, source: Source, height: int):
        super().__init__()
        self.source = source
        self.setFixedHeight(max(1, height))


def estimate_height(source: Source, width: int = 850) -> int:
    """A rough height (px) of the block ``source`` would build, from its text — for a placeholder that stands
    in for a block not built yet (the view corrects it when the block is built)."""
    _kind, msgs = source
    chars_per_line = max(20, width // 8)
    lines = 0
    for m in msgs:
        for line in (m.content or "").split("\n"):
            lines += 1 + len(line) // chars_per_line
    return 40 + 20 * lines


def _trim_heap() -> None:
    """Give freed memory back to the system (glibc keeps freed small blocks in its arenas otherwise)."""
    if sys.platform != "linux":
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return


Builder = Callable[[str, list[Message]], QWidget]


def rebuild(column: QVBoxLayout, blocks: list[QWidget], i: int, build: Builder) -> QWidget:
    """Put a rebuilt block in place of the placeholder ``blocks[i]``; returns the block."""
    w = blocks[i]
    if not isinstance(w, Placeholder):
        return w
    fresh = build(*w.source)
    column.replaceWidget(w, fresh)
    blocks[i] = fresh
    fresh.show()
    w.hide()
    w.deleteLater()
    return fresh


def settle(area: QScrollArea, column: QVBoxLayout, blocks: list[QWidget], build: Builder) -> None:
    """Release far blocks and rebuild near placeholders. ``blocks`` are the blocks in ``column`` (the list is
    updated in place); ``build(kind, messages)`` makes a block."""
    if not blocks:
        return
    for _ in range(3):  # lay out new blocks first: their heights cascade (text → turn → column)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
    bar = area.verticalScrollBar()
    view_h = max(1, area.viewport().height())
    keep = KEEP_SCREENS * view_h
    top, bottom = bar.value() - keep, bar.value() + view_h + keep
    content = area.widget()
    if content is None:
        return
    released = 0
    shift = 0  # height change of rebuilt blocks above the shown part: scroll by it to keep the view still
    for i, w in enumerate(blocks):
        y = w.mapTo(content, w.rect().topLeft()).y() if w.parentWidget() is not None else 0
        near = y + w.height() >= top and y <= bottom
        source: Any = getattr(w, "source", None)
        if isinstance(w, Placeholder):
            if near:
                fresh = rebuild(column, blocks, i, build)
                if y + w.height() <= bar.value():
                    shift += fresh.sizeHint().height() - w.height()
        elif source is not None and not near:
            ph = Placeholder(source, w.height())
            column.replaceWidget(w, ph)
            blocks[i] = ph
            w.hide()
            w.deleteLater()
            released += 1
    if shift:
        bar.setValue(bar.value() + shift)
    if released:
        _trim_heap()
