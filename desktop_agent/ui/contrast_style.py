"""Fusion with radio-button and check-box outlines that show on a dark palette (:class:`ContrastStyle`).

Its own module because a Python style is called for every primitive Qt paints (PySide6 converts each
option, painter and widget to Python): :func:`desktop_agent.ui.theme.apply` installs it only with a dark
palette, where it draws something, and plain Fusion otherwise — the window's first frame is painted without it.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import QProxyStyle, QStyle

from desktop_agent.ui.theme import indicator_outline


class ContrastStyle(QProxyStyle):
    """Fusion with radio-button and check-box outlines that show on a dark palette.

    Fusion outlines these indicators with ``Window.darker()``: on a dark window that is a near-black
    ring on a near-black background, and an unchecked radio button cannot be seen. On a dark palette
    this style adds a ring in a text/window mix (about 4:1 against the window); light palettes are
    drawn exactly as Fusion draws them."""

    _INDICATORS = (QStyle.PrimitiveElement.PE_IndicatorRadioButton, QStyle.PrimitiveElement.PE_IndicatorCheckBox)

    def __init__(self, base: str = "Fusion"):
        super().__init__(base)

    def drawPrimitive(self, element, option, painter, widget=None) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if element not in self._INDICATORS:
            return
        pal = option.palette
        window = pal.color(QPalette.ColorRole.Window)
        if window.lightness() >= 128:
            return
        painter.save()
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(indicator_outline(pal), 1))
            r = QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5)
            if element == QStyle.PrimitiveElement.PE_IndicatorRadioButton:
                painter.drawEllipse(r)
            else:
                painter.drawRoundedRect(r, 1.5, 1.5)
        finally:
            painter.restore()
