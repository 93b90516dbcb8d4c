"""The Settings dialog's Desktop page: the tray icon (close to the tray) and the notification when a long answer ends.

Where the desktop has no system tray (:meth:`QSystemTrayIcon.isSystemTrayAvailable` is false — a desktop without
a notification area, or GNOME without its AppIndicator extension) the tray choice is disabled and a note says so:
closing the window quits there, whatever the settings file holds.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QFormLayout, QSystemTrayIcon, QVBoxLayout

from desktop_agent.core.settings import Settings
from desktop_agent.ui.settings.common import SettingsPage, form_row, hint_label, note_label, show


class DesktopPage(SettingsPage):
    """``desktop.tray`` and ``desktop.notifications`` as two check boxes. ``tray_available``: whether the desktop
    has a system tray (default: asked of Qt)."""

    def __init__(self, tray_available: bool | None = None) -> None:
        super().__init__()
        self.tray_available = QSystemTrayIcon.isSystemTrayAvailable() if tray_available is None else tray_available
        self._loaded_tray = False  # the file's choice, kept where there is no tray
        outer = QVBoxLayout(self)
        form = QFormLayout()
        outer.addLayout(form)
        outer.addStretch(1)

        self.tray_box = QCheckBox(self.tr("Show an icon in the system &tray; closing the window keeps the app there"))
        self.tray_box.setAccessibleName(self.tr("Tray icon"))
        self.tray_box.setAccessibleDescription(self.tr(
            "The tray icon's menu shows or hides the window, starts a new chat, opens the quick ask and quits."))
        self.tray_box.toggled.connect(self.changed)
        self.tray_note = note_label(self.tr("Tray note"))
        form_row(form, self.tr("Tray:"), self.tray_box, self.tray_note,
                 hint_label(self.tr("Its menu: show or hide the window, new chat, quick ask, quit.")))

        self.notify_box = QCheckBox(self.tr("&Notify me when a long answer ends while the window is in the background"))
        self.notify_box.setAccessibleName(self.tr("Notifications"))
        self.notify_box.toggled.connect(self.changed)
        form_row(form, self.tr("Notifications:"), self.notify_box,
                 hint_label(self.tr("An answer that took more than 10 seconds: you likely turned to something else.")))

    def load(self, settings: Settings) -> None:
        self.tray_box.setChecked(settings.desktop.tray and self.tray_available)
        self.tray_box.setEnabled(self.tray_available)
        show(self.tray_note, None if self.tray_available else self.tr(
            "This desktop has no system tray (notification area), so there is no tray icon: closing the window "
            "quits the app."), "info")
        self.notify_box.setChecked(settings.desktop.notifications)
        self._loaded_tray = settings.desktop.tray

    def values(self) -> dict[str, Any]:
        # without a tray the saved choice is kept as it was (the same file may serve a desktop that has one)
        tray = self.tray_box.isChecked() if self.tray_available else self._loaded_tray
        return {"desktop.tray": tray, "desktop.notifications": self.notify_box.isChecked()}
