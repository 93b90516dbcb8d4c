"""SVG icons from ``resources/icons``, recoloured to the palette.

The SVGs draw with ``currentColor``; :func:`icon` substitutes a concrete colour (the palette's text
colour unless told otherwise) and renders them with QtSvg, so the same files work in light and dark
palettes. Icons are cached per (name, colour); each is drawn only in the sizes it is painted at, when first
painted (:class:`_SvgIconEngine`), which keeps building the window's toolbar and menus cheap.
"""

from __future__ import annotations

import functools
from pathlib import Path

from PySide6.QtCore import QByteArray, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QIconEngine, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

_SIZES = (16, 20, 24, 32, 48)


def icons_dir() -> Path:
    """``desktop_agent/resources/icons`` in an installed wheel, ``<repo>/resources/icons`` in a checkout."""
    here = Path(__file__).resolve().parent.parent  # desktop_agent/
    for candidate in (here / "resources" / "icons", here.parent / "resources" / "icons"):
        if candidate.is_dir():
            return candidate
    return here.parent / "resources" / "icons"


def icon_path(name: str) -> Path:
    return icons_dir() / f"{name}.svg"


@functools.lru_cache(maxsize=64)
def _svg_bytes(name: str) -> bytes:
    try:
        return icon_path(name).read_bytes()
    except OSError:
        return b""


def _text_color() -> str:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return "#333333"
    return app.palette().color(QPalette.ColorRole.WindowText).name()


def pixmap(name: str, size: int, color: str | QColor | None = None, ratio: float = 1.0) -> QPixmap:
    """The icon ``name`` as a square pixmap of ``size`` logical pixels, drawn in ``color``."""
    col = QColor(color).name() if color is not None else _text_color()
    data = _svg_bytes(name).replace(b"currentColor", col.encode())
    pm = QPixmap(int(size * ratio), int(size * ratio))
    pm.fill(Qt.GlobalColor.transparent)
    if data:
        renderer = QSvgRenderer(QByteArray(data))
        painter = QPainter(pm)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter, QRectF(0, 0, pm.width(), pm.height()))
        painter.end()
    pm.setDevicePixelRatio(ratio)
    return pm


class _SvgIconEngine(QIconEngine):
    """Draws icon ``name`` in ``color`` (``disabled`` for the disabled mode) at the size asked for, once per
    size, mode and device pixel ratio."""

    def __init__(self, name: str, color: str, disabled: str):
        super().__init__()
        self._name, self._color, self._disabled = name, color, disabled
        self._drawn: dict[tuple[int, bool, float], QPixmap] = {}

    def _pixmap(self, size: QSize, mode: QIcon.Mode, scale: float) -> QPixmap:
        side = max(1, min(size.width(), size.height()))
        off = mode == QIcon.Mode.Disabled
        key = (side, off, scale)
        drawn = self._drawn.get(key)
        if drawn is None:
            drawn = self._drawn[key] = pixmap(self._name, side, self._disabled if off else self._color, scale)
        return drawn

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self._pixmap(size, mode, 1.0)

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        return self._pixmap(size, mode, scale)

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        scale = painter.device().devicePixelRatioF() if painter.device() is not None else 1.0
        painter.drawPixmap(rect, self._pixmap(rect.size(), mode, scale))

    def availableSizes(self, mode: QIcon.Mode = QIcon.Mode.Normal, state: QIcon.State = QIcon.State.Off) -> list:
        return [QSize(s, s) for s in _SIZES]

    def clone(self) -> QIconEngine:
        return _SvgIconEngine(self._name, self._color, self._disabled)


_cache: dict[tuple[str, str, str], QIcon] = {}


def icon(name: str, color: str | QColor | None = None, disabled: str | QColor | None = None) -> QIcon:
    """A :class:`QIcon` for ``name`` (file stem in resources/icons), in ``color`` (default: the
    palette's window text), with a paler disabled state. Unknown names give an empty icon."""
    col = QColor(color).name() if color is not None else _text_color()
    if disabled is None:
        app = QApplication.instance()
        dis = (
            app.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText).name()
            if isinstance(app, QApplication)
            else "#999999"
        )
    else:
        dis = QColor(disabled).name()
    key = (name, col, dis)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    result = QIcon(_SvgIconEngine(name, col, dis))  # drawn in a size when it is first painted in it
    _cache[key] = result
    return result


def app_icon() -> QIcon:
    """The application icon (a coloured SVG, without ``currentColor``: the same in every palette and mode)."""
    return icon("desktop-agent")


def clear_cache() -> None:
    """Forget rendered icons (after a palette change)."""
    _cache.clear()
