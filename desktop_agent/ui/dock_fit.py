"""Side docks give way to the chat in a small window: they shrink to their share of the width, and when even
that leaves the chat too narrow they are hidden — and shown again, at their old width, once there is room."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget


class DockFitter(QObject):
    """Keeps the chat (``central``) usable in a small ``window``: below :attr:`min_chat_width` its side docks
    shrink to their share of the width; when even at their minimum they would leave the chat narrower than
    :attr:`hide_below`, they are hidden (the last added first) and come back when the window is wide again.

    A dock the user hides or shows by hand is the user's choice: it is never re-shown by the fitter."""

    def __init__(self, window: QMainWindow, central: QWidget, *, min_chat_width: int, hide_below: int,
                 shares: dict[str, float]) -> None:
        super().__init__(window)
        self.window = window
        self.central = central
        self.min_chat_width = min_chat_width
        self.hide_below = hide_below
        self.shares = shares
        self.docks: list[QDockWidget] = []
        #: docks hidden to make room, with the width each had, in the order they were hidden
        self.given_way: list[tuple[QDockWidget, int]] = []
        #: each dock's width the last time the chat had room (the width the user chose)
        self.chosen: dict[str, int] = {}
        self._hiding = False

    def add(self, dock: QDockWidget) -> None:
        """Manage ``dock`` (in the order of adding: the first added gives way last)."""
        self.docks.append(dock)
        dock.visibilityChanged.connect(lambda visible, d=dock: self._visibility_changed(d, visible))

    def remove(self, dock: QDockWidget) -> None:
        """Stop managing ``dock`` (it is going away)."""
        self.docks = [d for d in self.docks if d is not dock]
        self.given_way = [(d, w) for d, w in self.given_way if d is not dock]

    def schedule(self) -> None:
        """Fit after the dock layout has taken the window's new size."""
        QTimer.singleShot(0, self.fit)

    def _side_docks(self) -> list[QDockWidget]:
        return [d for d in self.docks if d.isVisible() and not d.isFloating()]

    def fit(self) -> None:
        width = self.window.width()
        if self.central.width() < self.min_chat_width:
            self._shrink()
            # hide docks (the last added first) while the chat is too narrow even with them at their minimum
            for dock in reversed(self._side_docks()):
                room = width - sum(d.minimumSizeHint().width() for d in self._side_docks())
                if room >= self.hide_below:
                    break
                self._hide(dock)
            return
        self._restore(width)
        for dock in self._side_docks():
            self.chosen[dock.objectName()] = dock.width()

    def _shrink(self) -> None:
        docks, widths = [], []
        for dock in self._side_docks():
            share = int(self.window.width() * self.shares.get(dock.objectName(), 0.25))
            target = max(dock.minimumSizeHint().width(), share)
            if dock.width() > target:
                docks.append(dock)
                widths.append(target)
        if docks:
            self.window.resizeDocks(docks, widths, Qt.Orientation.Horizontal)

    def _hide(self, dock: QDockWidget) -> None:
        self.given_way.append((dock, self.chosen.get(dock.objectName(), dock.width())))
        self._hiding = True
        try:
            dock.hide()
        finally:
            self._hiding = False

    def _restore(self, width: int) -> None:
        # the dock hidden last comes back first, when the chat keeps its width beside it
        while self.given_way:
            dock, old_width = self.given_way[-1]
            used = sum(d.width() for d in self._side_docks())
            share = int(width * self.shares.get(dock.objectName(), 0.25))
            want = max(dock.minimumSizeHint().width(), min(old_width, share))
            if width - used - want < self.min_chat_width:  # room to spare, so a dock never flickers in and out
                return
            self.given_way.pop()
            self._hiding = True
            try:
                dock.show()
            finally:
                self._hiding = False
            self.window.resizeDocks([dock], [want], Qt.Orientation.Horizontal)

    def _visibility_changed(self, dock: QDockWidget, visible: bool) -> None:
        if self._hiding or not visible:
            return
        # shown by the user (menu, shortcut): it no longer waits to be restored
        self.given_way = [(d, w) for d, w in self.given_way if d is not dock]

    @contextlib.contextmanager
    def as_chosen(self) -> Iterator[None]:
        """Inside, the docks that gave way are shown again — to save the layout the user chose, not the one a
        small window forced."""
        hidden = [d for d, _w in self.given_way]
        self._hiding = True
        try:
            for d in hidden:
                d.show()
            yield
        finally:
            for d in hidden:
                d.hide()
            self._hiding = False
