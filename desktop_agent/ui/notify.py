"""A desktop notification when a long answer ends while the window is not active (Settings → Desktop →
Notifications, on by default).

*Long*: the turn took at least :data:`LONG_ANSWER_S` (10 s) from send to end. Under that the user is most likely
still watching — ten seconds is the usual limit of attention to a wait (Nielsen's response-time limits), and what
GNOME Terminal uses to notify about a command that finished in a window in the background. *Not active*: hidden
(in the tray), minimised, or another window has the focus. A finished answer says so with the start of its text,
a failed one with its error; a stopped one says nothing (the user stopped it).

The notification goes through the tray icon when there is one (``QSystemTrayIcon.showMessage``), otherwise to the
desktop's notification service, ``org.freedesktop.Notifications.Notify`` on the session D-Bus. The call is made
from a worker thread with ``jeepney`` (pure Python, already there with keyring's Secret Service backend on Linux):
PySide6's QtDBus cannot marshal the method's ``uint`` and ``as`` arguments (a Python int goes as ``i``, an empty
list as ``av``), and a notification service rejects such a call. No session bus, or no service on it: nothing is
shown, a line in the log says why.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

if TYPE_CHECKING:
    from desktop_agent.ui.controller import ChatController
    from desktop_agent.ui.main_window import MainWindow
    from desktop_agent.ui.tray import AppTray

log = logging.getLogger(__name__)

#: a turn at least this long (seconds, send to end) is a long answer (see the module's doc for why 10)
LONG_ANSWER_S = 10.0
#: the most of the answer's text the notification shows
BODY_CHARS = 160
#: how long the notification service may take to answer (a worker thread waits, never the window)
DBUS_TIMEOUT_S = 5.0


def _tr(text: str) -> str:
    return QCoreApplication.translate("AnswerNotifier", text)


class AnswerNotifier(QObject):
    """Follows ``controller``'s turns and notifies at the end of a long one while ``window`` is not active."""

    #: a notification was handed over: (title, body, how — "tray" or "dbus"); ``failed``: it could not be (why)
    notified = Signal(str, str, str)
    failed = Signal(str)

    def __init__(self, window: MainWindow, controller: ChatController, tray: AppTray | None = None):
        super().__init__(window)
        self.window = window
        self.controller = controller
        self.tray = tray
        self._started: float | None = None
        self._answer = ""
        self._error = ""
        from desktop_agent.core.events import AnswerFinished, TurnFailed
        from desktop_agent.ui.agent_runner import TurnEnded, TurnStarted

        controller.add_routes({TurnStarted: self._on_started, AnswerFinished: self._on_answer,
                               TurnFailed: self._on_failed, TurnEnded: self._on_ended})

    def _on_started(self, ev: Any) -> None:
        self._started = time.monotonic() if not ev.compact else None
        self._answer = self._error = ""

    def _on_answer(self, ev: Any) -> None:
        self._answer = ev.message.content

    def _on_failed(self, ev: Any) -> None:
        from desktop_agent.ui import errors as ui_errors

        self._error = ui_errors.describe(ev.error).text

    def _on_ended(self, ev: Any) -> None:
        started, self._started = self._started, None
        if started is None or ev.outcome not in ("finished", "failed") or self.controller.closing:
            return
        took = time.monotonic() - started
        if took < LONG_ANSWER_S or self.window.isActiveWindow() or not self.controller.settings.desktop.notifications:
            return
        chat = self.controller.conversation
        name = chat.title or (chat.default_title() if chat.messages else "")
        if ev.outcome == "finished":
            title = _tr("The answer is ready") + (f" — {name}" if name else "")
            body = _snippet(self._answer)
        else:
            title = _tr("The answer failed") + (f" — {name}" if name else "")
            body = self._error
        self.notify(title, body)

    def notify(self, title: str, body: str) -> None:
        """Show ``title`` and ``body``: through the tray icon when it is there, else over D-Bus (in the background)."""
        if self.tray is not None and self.tray.show_message(title, body):
            log.info("notified through the tray icon")
            self.notified.emit(title, body, "tray")
            return

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None:
                log.info("no desktop notification: %s", error)
                self.failed.emit(str(error))
            else:
                log.info("desktop notification %s shown", result)
                self.notified.emit(title, body, "dbus")

        self.controller.tasks.run(lambda _task: send_notification(title, body), done)


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= BODY_CHARS else text[: BODY_CHARS - 1].rstrip() + "…"


def send_notification(title: str, body: str, timeout_s: float = DBUS_TIMEOUT_S) -> int:
    """``org.freedesktop.Notifications.Notify`` on the session bus; returns the notification's id. Raises OSError
    (or ``jeepney``'s errors) when there is no bus or no service on it. Blocking: call it off the GUI thread."""
    try:
        from jeepney import DBusAddress, DBusErrorResponse, MessageType, new_method_call
        from jeepney.io.blocking import open_dbus_connection
    except ImportError as exc:  # not on Linux (keyring brings it there)
        raise OSError("no D-Bus client library (jeepney)") from exc
    address = DBusAddress("/org/freedesktop/Notifications", bus_name="org.freedesktop.Notifications",
                          interface="org.freedesktop.Notifications")
    hints = {"desktop-entry": ("s", "desktop-agent"), "category": ("s", "im.received")}
    # the body may hold markup (the spec's "body-markup"): the model's text is shown as text, never as markup
    plain = body.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    message = new_method_call(address, "Notify", "susssasa{sv}i",
                              ("Desktop Agent", 0, "desktop-agent", title, plain, [], hints, -1))
    try:
        connection = open_dbus_connection(bus="SESSION")
    except (KeyError, ValueError) as exc:  # DBUS_SESSION_BUS_ADDRESS unset or unusable
        raise OSError(f"no session D-Bus ({exc})") from exc
    with connection:
        reply = connection.send_and_get_reply(message, timeout=timeout_s)
    if reply.header.message_type == MessageType.error:
        raise OSError(f"the notification service refused: {DBusErrorResponse(reply)}")
    return int(reply.body[0])
