"""The optional tray icon (Settings → Desktop → Tray, off by default): closing the window keeps the app running in the
system tray; the icon's menu shows or hides the window, starts a new chat, opens the quick ask and quits.

Only where the desktop has a tray (:meth:`QSystemTrayIcon.isSystemTrayAvailable`: an X11 tray, or a
StatusNotifierItem host on D-Bus — KDE, GNOME with the AppIndicator extension, most others): elsewhere there is no
icon whatever the setting says, and closing the window quits (Settings says so). A click on the icon shows or hides
the window. While the icon is there the app does not quit when its last window closes; Quit (the menu, Ctrl+Q,
Ctrl+C in the terminal) quits.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon

from desktop_agent.ui import icons

if TYPE_CHECKING:
    from desktop_agent.ui.controller import ChatController
    from desktop_agent.ui.main_window import MainWindow

log = logging.getLogger(__name__)


class AppTray(QObject):
    """The tray icon of ``window``, following ``controller``'s settings (``desktop.tray``) as they change."""

    def __init__(self, window: MainWindow, controller: ChatController):
        super().__init__(window)
        self.window = window
        self.controller = controller
        self.icon: QSystemTrayIcon | None = None
        self.menu: QMenu | None = None
        #: the app is quitting (Quit chosen): closing the window closes it
        self.quitting = False
        controller.settings_changed.connect(self.follow)
        self.follow()

    @staticmethod
    def available() -> bool:
        return QSystemTrayIcon.isSystemTrayAvailable()

    @property
    def keeps_running(self) -> bool:
        """Closing the window hides it: the icon is there."""
        return self.icon is not None and self.icon.isVisible()

    def follow(self) -> None:
        """Show or remove the icon as the settings say (and the desktop allows)."""
        want = self.controller.settings.desktop.tray and not self.controller.closing
        if want and self.icon is None and self.available():
            self._add()
        elif not want and self.icon is not None:
            self.remove()

    def _add(self) -> None:
        self.menu = QMenu()
        self.toggle_action = QAction(self.tr("&Hide the window"), self.menu)
        self.toggle_action.triggered.connect(self.toggle_window)
        self.new_chat_action = QAction(self.tr("&New chat"), self.menu)
        self.new_chat_action.triggered.connect(self._new_chat)
        self.quick_ask_action = QAction(self.tr("Quick &ask…"), self.menu)
        self.quick_ask_action.triggered.connect(self._quick_ask)
        self.quit_action = QAction(self.tr("&Quit"), self.menu)
        self.quit_action.triggered.connect(self.quit)
        for action in (self.toggle_action, self.new_chat_action, self.quick_ask_action):
            self.menu.addAction(action)
        self.menu.addSeparator()
        self.menu.addAction(self.quit_action)
        self.menu.aboutToShow.connect(self._update_toggle)
        self.icon = QSystemTrayIcon(icons.app_icon(), self)
        self.icon.setToolTip(self.tr("Desktop Agent"))
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self.icon.show()
        self._update_toggle()
        QApplication.setQuitOnLastWindowClosed(False)  # the window hides to the tray; Quit quits
        log.info("tray icon shown: closing the window keeps the app in the tray")

    def remove(self) -> None:
        """No icon any more: closing the window quits again (a hidden window comes back first)."""
        if self.icon is None:
            return
        self.icon.hide()
        self.icon.deleteLater()
        self.icon = None
        if self.menu is not None:
            self.menu.deleteLater()
            self.menu = None
        QApplication.setQuitOnLastWindowClosed(True)
        if not self.window.isVisible() and not self.quitting:
            self.window.show()  # nothing else would bring it back
        log.info("tray icon removed")

    def _update_toggle(self) -> None:
        if self.icon is not None:
            shown = self.window.isVisible() and not self.window.isMinimized()
            self.toggle_action.setText(self.tr("&Hide the window") if shown else self.tr("&Show the window"))

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (QSystemTrayIcon.ActivationReason.Trigger, QSystemTrayIcon.ActivationReason.DoubleClick):
            self.toggle_window()

    def toggle_window(self) -> None:
        if self.window.isVisible() and not self.window.isMinimized():
            self.window.hide()
        else:
            self.window.bring_to_front()
        self._update_toggle()

    def _new_chat(self) -> None:
        self.window.bring_to_front()
        self.window.new_chat()

    def _quick_ask(self) -> None:
        from desktop_agent.ui.quick_ask import quick_ask_of

        quick_ask_of(self.window).present()

    def quit(self) -> None:
        """Quit the app: the window closes for real (the turn is stopped and saved, as on any quit)."""
        self.quitting = True
        self.window.close()

    def intercept_close(self, event: QCloseEvent) -> bool:
        """The window is being closed: with the icon there (and not quitting) it only hides — True, the event is
        ignored. Otherwise the icon goes and the close goes on (the app quits with its last window)."""
        if self.keeps_running and not self.quitting:
            event.ignore()
            self.window.hide()
            self._update_toggle()
            log.info("window closed to the tray")
            return True
        self.quitting = True
        self.remove()
        return False

    def show_message(self, title: str, body: str) -> bool:
        """A notification through the tray icon (when it is there); False when it is not."""
        if not self.keeps_running or self.icon is None:
            return False
        self.icon.showMessage(title, body, QSystemTrayIcon.MessageIcon.Information, 8000)
        return True
