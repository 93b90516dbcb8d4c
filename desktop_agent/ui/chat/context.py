"""What the parts of the chat need from the view: the current theme, markdown colours, a render hook."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QWidget

from desktop_agent.ui.i18n import translate
from desktop_agent.ui.theme import Theme

_loaded: dict[str, Any] = {}


def _lazy(name: str) -> Any:
    """Module ``name``, imported on first use and kept, so that a streaming frame does not go through the
    import machinery (and its lock, which a thread importing meanwhile holds)."""
    module = _loaded.get(name)
    if module is None:
        module = _loaded[name] = importlib.import_module(name)
    return module


def markdown_module():
    """:mod:`desktop_agent.ui.markdown`, imported on first use (it pulls in the markdown parser and
    Pygments, which start-up should not pay for)."""
    return _lazy("desktop_agent.ui.markdown")


def markdown_growth():
    """:mod:`desktop_agent.ui.markdown_growth` (what of a streaming answer is finished), on first use."""
    return _lazy("desktop_agent.ui.markdown_growth")


def markdown_colors(th: Theme):
    """The markdown renderer's colours for theme ``th``."""
    md = markdown_module()
    mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()
    return md.Colors(
        text=th.text,
        muted=th.muted,
        link=th.link,
        code_bg=th.code_bg,
        code_head=th.code_head,
        inline_code_bg=th.inline_code_bg,
        border=th.assistant_border,
        mono_family=mono,
        pygments_style=th.pygments_style,
        copy_text=translate("Markdown", "Copy"),
        copied_text=translate("Markdown", "Copied ✓"),
    )


def _ignore_render(_part: QWidget) -> None:
    return None


@dataclass
class ChatContext:
    """Shared by the view and every block and part it creates. The view owns it and calls
    :meth:`set_theme` on a light/dark switch, so parts always read the current theme from here."""

    theme: Theme
    #: called after each render of a text part (the view counts renders)
    on_render: Callable[[QWidget], None] = _ignore_render
    #: the shortest interval (ms) between two renders of a streaming part: the view sets it from what its
    #: frames cost (``ChatView._pace``)
    frame_ms: float = 33.0
    _md_colors: Any = field(default=None, repr=False)

    def md_colors(self):
        """The markdown colours for the current theme (computed once per theme)."""
        if self._md_colors is None:
            self._md_colors = markdown_colors(self.theme)
        return self._md_colors

    def set_theme(self, th: Theme) -> None:
        self.theme = th
        self._md_colors = None
