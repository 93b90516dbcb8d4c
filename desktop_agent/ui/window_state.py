"""The window's layout kept between runs (geometry, docks, whether the history shows) in ``window.ini``.
A damaged file costs only the layout."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QDockWidget, QMainWindow

log = logging.getLogger(__name__)


def restore_layout(window: QMainWindow, qs: QSettings) -> bool:
    """Put the saved geometry and dock layout back; True when a dock layout was restored."""
    try:
        geo = qs.value("geometry")
        if isinstance(geo, QByteArray | bytes) and geo:
            window.restoreGeometry(QByteArray(geo))
        state = qs.value("state")
        if isinstance(state, QByteArray | bytes) and state:
            return window.restoreState(QByteArray(state))
    except Exception:  # a damaged window.ini only loses the window layout
        log.warning("could not restore the window layout", exc_info=True)
    return False


def save_layout(window: QMainWindow, qs: QSettings, dock_fit: Any, history: QDockWidget | None) -> None:
    """Save the geometry and the dock layout as the user chose it (not as narrowed to fit)."""
    try:
        qs.setValue("geometry", window.saveGeometry())
        with dock_fit.as_chosen():
            qs.setValue("state", window.saveState())
            if history is not None:
                qs.setValue("history_visible", history.isVisible())
        qs.sync()
    except Exception:
        log.warning("could not save the window layout", exc_info=True)
