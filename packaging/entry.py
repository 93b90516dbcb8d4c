"""Entry script of the PyInstaller build (``packaging/desktop-agent.spec``): the same as
``python -m desktop_agent`` / the ``desktop-agent`` gui-script.

Smoke-test hook, for the packaged app only (``packaging/build.sh --check`` uses it):
``DESKTOP_AGENT_SMOKE_GRAB=/path/shot.png`` starts the window as usual, and ``DESKTOP_AGENT_SMOKE_MS``
milliseconds (default 3000) after the event loop starts saves a grab of the main window to that path
and quits the application normally (exit code 0; 3 if no window was shown). Without the variable
nothing here touches Qt.
"""

from __future__ import annotations

import os
import sys


def _install_smoke_grab(path: str) -> None:
    # run_gui() reuses an existing QApplication, so create it here and queue the grab before it runs.
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication.instance() or QApplication([sys.argv[0]])
    delay = int(os.environ.get("DESKTOP_AGENT_SMOKE_MS", "3000") or 3000)

    def grab() -> None:
        windows = [w for w in app.topLevelWidgets() if isinstance(w, QMainWindow) and w.isVisible()]
        if not windows:
            print("desktop-agent smoke: no main window is visible", file=sys.stderr)
            app.exit(3)
            return
        ok = windows[0].grab().save(path)
        print(f"desktop-agent smoke: grab {'saved to' if ok else 'FAILED for'} {path}", file=sys.stderr)
        app.exit(0 if ok else 4)

    QTimer.singleShot(delay, grab)
    # keep a reference: the application must outlive this function
    globals()["_smoke_app"] = app


def main() -> int:
    grab = os.environ.get("DESKTOP_AGENT_SMOKE_GRAB")
    if grab and not {"chat", "tools", "history", "-h", "--help", "--version", "--tool-host",
                     "--install-desktop-entry", "--uninstall-desktop-entry"} & set(sys.argv[1:]):
        _install_smoke_grab(grab)
    from desktop_agent.app import main as app_main

    return app_main()


if __name__ == "__main__":
    raise SystemExit(main())
