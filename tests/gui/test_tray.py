"""The optional tray icon (issue 25). Without a tray (offscreen, like a desktop without a notification area) the
setting is disabled with a note and closing the window quits, even with ``desktop.tray`` on in the file. With a
tray — a real X server (Xvfb) and a StatusNotifierWatcher on a private session bus, what KDE or GNOME's AppIndicator
extension provide — the icon registers, closing the window hides it to the tray, and the menu shows/hides the
window, starts a new chat, opens the quick ask and quits the app."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from PySide6.QtWidgets import QSystemTrayIcon

from desktop_agent.core.settings import Settings
from tests.packaging.test_desktop_files import require_tool

ROOT = Path(__file__).resolve().parents[2]


def test_without_a_tray_the_setting_says_so_and_close_quits(qtbot, make_window, tmp_path):
    assert not QSystemTrayIcon.isSystemTrayAvailable()  # offscreen: no tray
    w = make_window(Settings().updated({"desktop.tray": True}))  # on in the file: no icon all the same
    assert w.tray is not None and w.tray.icon is None and not w.tray.keeps_running
    w.open_settings(tab="Desktop")
    dialog = w.settings_dialog
    qtbot.waitUntil(lambda: dialog is not None and dialog.isVisible(), timeout=5000)
    page = dialog.desktop_page
    assert not page.tray_box.isEnabled() and not page.tray_box.isChecked()
    assert page.tray_note.isVisibleTo(page) and "no system tray" in page.tray_note.text()
    assert "closing the window quits" in page.tray_note.text()
    assert page.values()["desktop.tray"] is True  # the file's choice is kept for a desktop that has a tray
    dialog.grab().save(str(tmp_path / "desktop_page.png"))
    shutil.copy(tmp_path / "desktop_page.png", os.environ.get("TRAY_SHOT", "/tmp/desktop_page.png"))
    assert page.notify_box.isChecked()  # the default
    page.notify_box.setChecked(False)
    dialog.save_button.click()
    qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=5000)
    assert w.settings.desktop.notifications is False and w.settings.desktop.tray is True  # saved and in use
    w.close()
    assert w.controller.closing  # closed for good: the app quits with it
    assert not w.isVisible()


def test_defaults_no_tray_icon_and_notifications_on():
    s = Settings()
    assert s.desktop.tray is False and s.desktop.notifications is True


DRIVER = textwrap.dedent(
    """
    import json, subprocess, sys, time
    sys.path.insert(0, {root!r})
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QSystemTrayIcon
    from desktop_agent.core.settings import Settings
    from desktop_agent.ui.main_window import MainWindow
    from desktop_agent.ui.quick_ask import quick_ask_of

    host = subprocess.Popen([sys.executable, "-m", "tests.helpers.tray_host"], stdout=subprocess.PIPE, text=True,
                            cwd={root!r})
    assert host.stdout.readline().strip() == "ready"
    app = QApplication(sys.argv)
    out = {{"available": QSystemTrayIcon.isSystemTrayAvailable()}}

    def wait(pred, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            app.processEvents()
            if pred():
                return True
            time.sleep(0.02)
        return False

    w = MainWindow(Settings().updated({{"desktop.tray": True}}), check_server=False, store=False)
    w.show()
    out["ready"] = wait(lambda: w.ready and w.tray is not None and w.tray.keeps_running)
    out["quit_on_last_closed_with_tray"] = QApplication.quitOnLastWindowClosed()
    w.close()
    out["closed_hides"] = wait(lambda: not w.isVisible()) and not w.controller.closing
    w.tray.menu.aboutToShow.emit()
    out["menu"] = [a.text() for a in w.tray.menu.actions() if a.text()]
    w.tray.toggle_action.trigger()
    out["shown_again"] = wait(w.isVisible)
    before = w.conversation.id
    w.tray.new_chat_action.trigger()
    out["new_chat"] = wait(lambda: w.conversation.id != before)
    w.tray.quick_ask_action.trigger()
    out["quick_ask"] = wait(lambda: quick_ask_of(w).isVisible())
    w.tray.toggle_action.trigger()
    out["hidden_by_menu"] = wait(lambda: not w.isVisible())
    how = []
    w.notifier.notified.connect(lambda *a: how.append(a[2]))
    w.notifier.notify("The answer is ready", "B")
    out["notified_by"] = how
    QTimer.singleShot(0, w.tray.quit_action.trigger)
    QTimer.singleShot(15000, lambda: app.exit(3))
    out["exit"] = app.exec()
    out["closed_for_good"] = w.controller.closing and not quick_ask_of(w).isVisible()
    host.terminate()
    out["registered"] = any(line.startswith("registered") for line in host.communicate()[0].splitlines())
    print("RESULT " + json.dumps(out), flush=True)
    """
).format(root=str(ROOT))


def test_with_a_tray_close_hides_and_the_menu_works(tmp_path):
    for tool in ("xvfb-run", "dbus-run-session"):  # (skips without them — fails where the run expects every tool)
        require_tool(tool)
    script = tmp_path / "driver.py"
    script.write_text(DRIVER, encoding="utf-8")
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(ROOT),
           "DESKTOP_AGENT_HOME": str(tmp_path / "home")}
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)  # a bus of its own, with the stand-in tray on it
    done = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", "dbus-run-session", "--",
                           sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, done.stdout + done.stderr
    out = json.loads(lines[-1].removeprefix("RESULT "))
    assert out["available"] and out["ready"] and out["registered"], out
    assert out["quit_on_last_closed_with_tray"] is False
    assert out["closed_hides"], out
    assert out["menu"] == ["&Show the window", "&New chat", "Quick &ask…", "&Quit"], out  # the window is hidden
    assert out["shown_again"] and out["new_chat"] and out["quick_ask"] and out["hidden_by_menu"], out
    assert out["notified_by"] == ["tray"], out  # with the icon there, a notification is its message
    assert out["exit"] == 0 and out["closed_for_good"], out
