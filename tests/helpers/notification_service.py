"""A small desktop notification service for the tests: ``org.freedesktop.Notifications`` with ``Notify`` (the real
signature ``susssasa{sv}i``) on the session bus of ``DBUS_SESSION_BUS_ADDRESS``. Prints ``ready`` once it owns the
name, then one ``NOTIFY {json}`` line per notification received. Runs in a process of its own, so the test process
never loads QtDBus (its connection thread can crash a process at exit)::

    python -m tests.helpers.notification_service
"""

from __future__ import annotations

import json
import sys

from PySide6.QtCore import ClassInfo, QCoreApplication, QObject, Slot
from PySide6.QtDBus import QDBusConnection


@ClassInfo({"D-Bus Interface": "org.freedesktop.Notifications"})
class NotificationService(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    @Slot(str, "uint", str, str, str, "QStringList", "QVariantMap", int, result="uint")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        self.count += 1
        print("NOTIFY " + json.dumps({
            "app_name": app_name, "replaces_id": replaces_id, "app_icon": app_icon, "summary": summary, "body": body,
            "actions": list(actions), "hints": {k: str(v) for k, v in dict(hints).items()},
            "expire_timeout": expire_timeout}), flush=True)
        return self.count

    @Slot(result="QStringList")
    def GetCapabilities(self):
        return ["body"]


def main() -> int:
    app = QCoreApplication(sys.argv)
    bus = QDBusConnection.sessionBus()
    service = NotificationService()
    if not (bus.registerObject("/org/freedesktop/Notifications", service,
                               QDBusConnection.RegisterOption.ExportAllSlots)
            and bus.registerService("org.freedesktop.Notifications")):
        print(f"could not register: {bus.lastError().message()}", file=sys.stderr, flush=True)
        return 1
    print("ready", flush=True)
    return app.exec()


if __name__ == "__main__":
    raise SystemExit(main())
