"""The window's layout kept between runs (geometry, docks, whether the history shows) and the place it was at
(the chat on screen and the message at the top of the view) in ``window.ini``. A damaged file costs only the
layout and the place."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QDockWidget, QMainWindow

if TYPE_CHECKING:
    from desktop_agent.ui.main_window import MainWindow

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


def save_place(qs: QSettings, chat_id: str | None, message_id: int | None) -> None:
    """Remember the chat on screen (None: a new, empty chat) and the message at the top of its view (None: its
    end), for the next start."""
    try:
        qs.setValue("last_chat", chat_id or "")
        qs.setValue("last_message", "" if message_id is None else str(message_id))
        qs.sync()
    except Exception:
        log.warning("could not save the chat on screen", exc_info=True)


def last_place(qs: QSettings) -> tuple[str | None, int | None]:
    """The chat and message :func:`save_place` kept, (None, None) when there is none (or it cannot be read)."""
    try:
        chat = str(qs.value("last_chat", "") or "")
        message = str(qs.value("last_message", "") or "")
        return (chat or None), (int(message) if message.isdigit() else None)
    except Exception:
        log.warning("could not read the chat last on screen", exc_info=True)
        return None, None


def reopen_last_chat(window: MainWindow, qs: QSettings) -> None:
    """The "last chat" stage of the start-up: the chat on screen when the app was last closed comes back where it
    was — unless the user has begun a message meanwhile (it is for the new chat they see) or the chat is gone."""
    from desktop_agent.core.errors import StoreError

    chat_id, message_id = last_place(qs)
    if chat_id is None or window.waiting_text or window.conversation.messages or window.busy:
        return
    store, ctl = window.store, window.controller
    if not store or ctl is None:
        return
    try:
        store.summary(chat_id)
    except StoreError:  # deleted meanwhile (or another data folder's chat): a new chat, as after New chat
        return
    if ctl.open_conversation(chat_id) and message_id is not None:
        window.chat.scroll_to_message(message_id)
