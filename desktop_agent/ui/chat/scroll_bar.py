"""The chat's scroll bar: repainted only when what it shows changes on screen.

A streaming answer changes the scroll range and value every frame; a plain :class:`QScrollBar` repaints on each
change (twice a frame: the range, then the value), which cost about a millisecond a frame. In a long chat the
handle's pixels mostly stay put, so this bar repaints only when the handle's rectangle or an end it touches
changes, while a streaming frame settles (:meth:`QuietScrollBar.quiet`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider, QScrollBar, QStyle, QStyleOptionSlider, QWidget

_MOVES = (QAbstractSlider.SliderChange.SliderRangeChange, QAbstractSlider.SliderChange.SliderValueChange)


class QuietScrollBar(QScrollBar):
    """A vertical scroll bar that, inside :meth:`quiet`, skips repaints which would draw the same pixels.

    A streaming frame grows the range, then follows it to the bottom — in between the handle would be drawn a
    few pixels higher. Inside ``with bar.quiet():`` range and value changes do not repaint; at its end the bar
    repaints once if the result differs from what it drew. Outside, it is a plain scroll bar."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(Qt.Orientation.Vertical, parent)
        self._drawn: tuple | None = None
        self._quiet = False

    def _looks(self) -> tuple:
        """What the painted bar depends on: the handle's rectangle and whether it is at an end."""
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        handle = self.style().subControlRect(
            QStyle.ComplexControl.CC_ScrollBar, opt, QStyle.SubControl.SC_ScrollBarSlider, self)
        lo, hi, value = self.minimum(), self.maximum(), self.value()
        return handle.getRect(), value <= lo, value >= hi, lo == hi

    @contextmanager
    def quiet(self) -> Iterator[None]:
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False
            if self._drawn is not None and self._drawn != self._looks():
                self.update()

    def sliderChange(self, change: QAbstractSlider.SliderChange) -> None:
        if change in _MOVES and self._quiet and self._drawn is not None and not self.isSliderDown():
            return  # looked at when the quiet part ends
        super().sliderChange(change)

    def paintEvent(self, event) -> None:
        self._drawn = self._looks()
        super().paintEvent(event)
