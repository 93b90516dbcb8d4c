"""A stand-in for the desktop's tray: an ``org.kde.StatusNotifierWatcher`` with a host registered, on the session
bus (what KDE's panel, or GNOME's AppIndicator extension, provide). With it Qt's X11 platform finds a system tray
over D-Bus (``QSystemTrayIcon.isSystemTrayAvailable()``) and a tray icon registers with it: each registration is
printed as ``registered SERVICE``. Run as a separate process (Qt asks the watcher with a blocking call)::

    python -m tests.helpers.tray_host     # prints "ready" once it is on the bus, runs until killed
"""

from __future__ import annotations

import sys

from PySide6.QtCore import ClassInfo, Property, QCoreApplication, QObject, Slot
from PySide6.QtDBus import QDBusConnection


@ClassInfo({"D-Bus Interface": "org.kde.StatusNotifierWatcher"})
class Watcher(QObject):
    @Slot(str)
    def RegisterStatusNotifierItem(self, service: str) -> None:  # the D-Bus method's name
        print("registered", service, flush=True)

    @Slot(str)
    def RegisterStatusNotifierHost(self, service: str) -> None:
        pass

    def _host(self) -> bool:
        return True

    def _protocol(self) -> int:
        return 0

    IsStatusNotifierHostRegistered = Property(bool, _host, constant=True)
    ProtocolVersion = Property(int, _protocol, constant=True)


def main() -> int:
    app = QCoreApplication(sys.argv)
    bus = QDBusConnection.sessionBus()
    watcher = Watcher()
    if not (bus.registerObject("/StatusNotifierWatcher", watcher, QDBusConnection.RegisterOption.ExportAllContents)
            and bus.registerService("org.kde.StatusNotifierWatcher")):
        print("could not register on the session bus", file=sys.stderr, flush=True)
        return 1
    print("ready", flush=True)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
