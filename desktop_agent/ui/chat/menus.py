"""Small pieces of the chat's options strip (:mod:`desktop_agent.ui.chat_options`): the temperature box, a menu of
check boxes that stays open while they are ticked, and keeping a menu that grew on its screen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QDoubleSpinBox, QMenu, QWidget


class TemperatureBox(QDoubleSpinBox):
    """0 to 2 in steps of 0.1, shown without trailing zeros (0.7, 0.25, 1.0)."""

    def textFromValue(self, value: float) -> str:
        text = self.locale().toString(float(value), "f", self.decimals())
        point = self.locale().decimalPoint()
        if point in text:
            whole, _, frac = text.partition(point)
            text = f"{whole}{point}{frac.rstrip('0') or '0'}"
        return text


def keep_on_screen(menu: QMenu, anchor: QWidget) -> None:
    """Move an open ``menu`` that changed size so that all of it is on ``anchor``'s screen: below the anchor when
    it fits there, else above it, else as high as the screen allows."""
    menu.adjustSize()
    screen = anchor.screen().availableGeometry()
    size = menu.sizeHint()
    below = anchor.mapToGlobal(anchor.rect().bottomLeft())
    above_top = anchor.mapToGlobal(anchor.rect().topLeft()).y() - size.height()
    if below.y() + size.height() <= screen.bottom():
        y = below.y()
    elif above_top >= screen.top():
        y = above_top
    else:
        y = max(screen.top(), screen.bottom() - size.height())
    x = min(max(below.x(), screen.left()), max(screen.left(), screen.right() - size.width()))
    menu.move(x, y)


class ToolsMenu(QMenu):
    """A menu whose check boxes can be ticked one after the other: ticking one leaves the menu open."""

    def _toggle(self, action: QAction | None) -> bool:
        if action is None or not action.isCheckable() or not action.isEnabled():
            return False
        action.trigger()
        return True

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._toggle(self.actionAt(event.position().toPoint())):
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter) and self._toggle(
            self.activeAction()
        ):
            event.accept()
            return
        super().keyPressEvent(event)
