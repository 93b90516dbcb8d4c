"""What assistive technology and keyboard users get, in one place: the names the accessibility tree shows
(:func:`unnamed_controls` finds the focusable controls without one), the focus ring drawn around the widget
with the keyboard focus (:class:`FocusRing`), and announcements — a screen reader says "Answer finished"
when an answer ends (:func:`announce`, :class:`AnswerAnnouncer`).

Qt exposes the widgets through :class:`~PySide6.QtGui.QAccessible`; on Linux its AT-SPI bridge puts the same
tree on the accessibility bus (``at-spi2-core``), where Orca reads it.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent, QAccessibleInterface, QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QSplitter,
    QTextEdit,
    QWidget,
)
from shiboken6 import Shiboken

# ---- the accessibility tree ------------------------------------------------------------------------


@dataclass(frozen=True)
class Unnamed:
    """A focusable control the accessibility tree shows without a name: what a screen reader cannot say."""

    role: str
    widget: str  #: class and objectName of the widget (or of the widget an item belongs to)
    path: str  #: the names of its ancestors, outermost first

    def __str__(self) -> str:
        return f"{self.role} {self.widget} in {self.path or 'the top level'}"


def widget_label(obj: QObject | None) -> str:
    """``Class#objectName`` of ``obj`` (``Class`` alone when it has no objectName)."""
    if obj is None:
        return "?"
    name = obj.objectName()
    return type(obj).__name__ + (f"#{name}" if name else "")


def walk(root: QObject, limit: int = 20_000):
    """The accessible interfaces under ``root`` (itself included), depth first, with the names of their
    ancestors. Items of views (rows, cells) are interfaces without a widget of their own."""
    top = QAccessible.queryAccessibleInterface(root)
    if top is None:
        return
    stack: list[tuple[QAccessibleInterface, tuple[str, ...]]] = [(top, ())]
    seen = 0
    while stack and seen < limit:
        iface, path = stack.pop()
        if iface is None or not iface.isValid():
            continue
        seen += 1
        yield iface, path
        here = (*path, iface.text(QAccessible.Text.Name) or widget_label(iface.object()))
        children = [iface.child(i) for i in range(iface.childCount())]
        stack.extend((c, here) for c in reversed(children) if c is not None)


def labelled(iface: QAccessibleInterface) -> bool:
    """A label (a buddy) names the control: on Linux Qt names combo boxes this way, not by their own name."""
    return any(other.text(QAccessible.Text.Name).strip()
               for other, _ in iface.relations(QAccessible.RelationFlag.Labelled))


def unnamed_controls(root: QObject) -> list[Unnamed]:
    """The focusable, shown controls under ``root`` whose accessible name is empty."""
    found = []
    for iface, path in walk(root):
        state = iface.state()
        obj = iface.object()
        parent = iface.parent()
        # an item (a row, a cell) scrolled out of sight is still reached with the arrow keys: what counts is
        # whether its view shows
        shown = not state.invisible if obj is not None else parent is not None and not parent.state().invisible
        # a widget may be named by its label; an item (a cell, labelled by its column) must say something itself
        if (not state.focusable or not shown or iface.text(QAccessible.Text.Name).strip()
                or (obj is not None and labelled(iface))):
            continue
        owner = obj if obj is not None else (parent.object() if parent is not None else None)
        found.append(Unnamed(iface.role().name, widget_label(owner), " › ".join(path)))
    return found


def name_typed_entry(combo: QComboBox, text: str) -> None:
    """Name the line an editable combo box is typed in (a focusable control of its own in the tree)."""
    edit = combo.lineEdit()
    if edit is not None:
        edit.setAccessibleName(text)


def arrange_tab_order(window: QWidget, regions: list[QWidget | None], others_before: int) -> None:
    """Tab visits ``window``'s focusable widgets region by region, in the order of ``regions`` (a widget keeps
    its place among its region's); widgets in no region come before region ``others_before``. Widgets added
    later (a chat's messages) join the end of the chain: the last region should be where they appear."""
    chain: list[QWidget] = []
    w = window.nextInFocusChain()
    while w is not None and w is not window and len(chain) < 100_000:
        chain.append(w)
        w = w.nextInFocusChain()

    def rank(widget: QWidget) -> float:
        for i, region in enumerate(regions):  # (a region that is None keeps its place in the numbering)
            if region is not None and (region is widget or region.isAncestorOf(widget)):
                return i
        return others_before - 0.5

    tabbed = [w for w in chain if w.focusPolicy() & Qt.FocusPolicy.TabFocus and w.window() is window]
    ordered = sorted(tabbed, key=rank)  # stable: each region keeps its own order
    for before, after in pairwise(ordered):
        QWidget.setTabOrder(before, after)


# ---- the focus ring --------------------------------------------------------------------------------

#: widgets that show their focus themselves (a caret, a frame the style draws): no ring around them
_EDITS = (QLineEdit, QAbstractSpinBox)


def draws_own_focus(widget: QWidget) -> bool:
    if isinstance(widget, _EDITS):
        return True
    if isinstance(widget, QComboBox):
        return True  # Fusion frames a focused combo box in the highlight colour
    if isinstance(widget, (QTextEdit, QPlainTextEdit)):
        return not widget.isReadOnly()  # a read-only text (a message) shows no caret: it gets the ring
    return False


class _Ring(QWidget):
    """The ring itself: a frame in the highlight colour, transparent to the mouse."""

    WIDTH = 2

    def __init__(self, parent: QWidget, color: QColor):
        super().__init__(parent)
        self.setObjectName("focusRing")
        self.color = color
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def paintEvent(self, _event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(QPen(self.color, self.WIDTH))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        half = self.WIDTH / 2
        painter.drawRoundedRect(self.rect().toRectF().adjusted(half, half, -half, -half), 5, 5)
        painter.end()


class FocusRing(QObject):
    """A ring in the highlight colour around the widget that has the keyboard focus in ``window`` or its dialogs.

    Style sheets leave many of the window's buttons, chips and texts without any sign of focus; one overlay
    draws the same ring for all of them, in both themes. The ring is a child of the focused widget's parent
    (it scrolls with it) laid over the widget; it passes the mouse through and follows the widget's moves.
    Focus moved by a click shows no ring (as browsers' ``:focus-visible``): the keyboard's focus does."""

    def __init__(self, window: QWidget):
        super().__init__(window)
        self._window = window
        self._target: QWidget | None = None
        self._ring: _Ring | None = None
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        app.focusChanged.connect(self._focus_changed)

    @property
    def target(self) -> QWidget | None:
        """The widget the ring is around (None: no ring shown)."""
        t = self._target
        return t if t is not None and Shiboken.isValid(t) else None

    @property
    def ring(self) -> _Ring | None:
        r = self._ring
        return r if r is not None and Shiboken.isValid(r) else None

    def _focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        if old is not None and old is self.target:
            old.removeEventFilter(self)
        self._target = None
        clicked = QApplication.mouseButtons() != Qt.MouseButton.NoButton  # a click moved it: the pointer shows where
        if (new is None or clicked or not self._owns(new) or draws_own_focus(new)
                or new.parentWidget() is None):
            self._hide()
            return
        self._target = new
        new.installEventFilter(self)
        self._place()

    def _owns(self, widget: QWidget) -> bool:
        """``widget`` is in the window or in one of its dialogs (Settings, a question)."""
        top: QWidget | None = widget.window()
        while top is not None:
            if top is self._window:
                return True
            parent = top.parentWidget()
            top = parent.window() if parent is not None else None
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.target and event.type() in (QEvent.Type.Move, QEvent.Type.Resize, QEvent.Type.Show,
                                                       QEvent.Type.Hide):
            self._place()
        return False

    def _hide(self) -> None:
        ring = self.ring
        if ring is not None:
            ring.hide()

    @staticmethod
    def _host(target: QWidget) -> QWidget | None:
        """Where the ring goes: the target's parent — past a splitter, which takes every child for a pane."""
        host = target.parentWidget()
        while isinstance(host, QSplitter):
            host = host.parentWidget()
        return host

    def _place(self) -> None:
        target = self.target
        parent = self._host(target) if target is not None else None
        if target is None or parent is None or not target.isVisible():
            self._hide()
            return
        ring = self.ring
        if ring is None:
            ring = self._ring = _Ring(parent, QColor())
        elif ring.parentWidget() is not parent:
            ring.setParent(parent)  # (hidden by the move; shown below)
        pal = target.palette()
        ring.color = QColor(pal.color(pal.ColorRole.Highlight))  # the theme may have changed
        w = _Ring.WIDTH + 1
        at = QRect(target.mapTo(parent, QPoint(0, 0)), target.size())
        ring.setGeometry(at.adjusted(-w, -w, w, w).intersected(QRect(0, 0, parent.width(), parent.height())))
        ring.show()
        ring.raise_()
        ring.update()


# ---- announcements -----------------------------------------------------------------------------------


def announce(source: QObject, text: str, *, assertive: bool = False) -> None:
    """Have a screen reader say ``text`` (Qt's announcement event; on Linux the AT-SPI ``Announcement``
    signal of ``source``) without moving the focus."""
    event = QAccessibleAnnouncementEvent(source, text)
    event.setPoliteness(QAccessible.AnnouncementPoliteness.Assertive if assertive
                        else QAccessible.AnnouncementPoliteness.Polite)
    QAccessible.updateAccessibility(event)


class AnswerAnnouncer(QObject):
    """Says how each answer ended — finished, stopped, failed — so a blind user knows the chat is theirs
    again, and that a tool call waits for their approval (and the keys that answer it). ``source``: the widget
    the announcements come from (the conversation)."""

    def __init__(self, source: QWidget):
        super().__init__(source)
        self.source = source

    def routes(self) -> dict[type, Any]:
        from desktop_agent.core.events import AnswerFinished, TurnCancelled, TurnFailed
        from desktop_agent.core.mcp.elicitation import Question
        from desktop_agent.ui.agent_runner import ApprovalRequest

        return {ApprovalRequest: lambda ev: self.say(self.tr(
                    "%1 asks for your approval: Alt+O allows it once, Alt+D denies it").replace("%1", ev.tool_name),
                    assertive=True),
                Question: lambda ev: self.say(self.tr(
                    "The MCP server %1 asks: %2").replace("%1", ev.server).replace("%2", ev.message),
                    assertive=True),
                AnswerFinished: lambda _ev: self.say(self.tr("Answer finished")),
                TurnCancelled: lambda _ev: self.say(self.tr("Answer stopped")),
                TurnFailed: lambda _ev: self.say(self.tr("The answer failed"), assertive=True)}

    def say(self, text: str, *, assertive: bool = False) -> None:
        announce(self.source, text, assertive=assertive)
