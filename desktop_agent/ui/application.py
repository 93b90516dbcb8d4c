"""The application: QApplication set-up, theme, and :func:`run_gui`, the window's entry point.

Only PySide6 and light modules are imported before the window's first frame (see ``bench/startup.py``): the
window is started staged from a glance at the settings file (:mod:`desktop_agent.core.settings_glance`) and
loads the settings, logging and the rest right after its first frame (the stages of :mod:`desktop_agent.ui.startup`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, cast

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow

from desktop_agent.ui import i18n, icons, theme
from desktop_agent.ui.main_window import APP_DISPLAY_NAME, APP_NAME, MainWindow
from desktop_agent.ui.startup import Stage

log = logging.getLogger(__name__)

#: the environment a desktop gives a start so that its window may come to the front
ACTIVATION_ENV = ("XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID")


def display_problem(environ: dict[str, str] | None = None) -> str | None:
    """Why Qt could not open a window here, or None. Checked before QApplication exists, because Qt
    aborts the process (exit 134, core dump) when it finds no display or no xcb cursor library. The
    variables are Qt's own, not the app's configuration (see core.services.OTHER_READERS)."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux") or env.get("QT_QPA_PLATFORM"):
        return None
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return (  # said on the terminal, before any window: English, like the rest of the terminal
            "no display found (neither DISPLAY nor WAYLAND_DISPLAY is set). Start it from a desktop session, "
            "or chat in the terminal with `desktop-agent chat`."
        )
    if not env.get("WAYLAND_DISPLAY"):
        import ctypes.util

        if ctypes.util.find_library("xcb-cursor") is None:
            return (
                "Qt needs the xcb-cursor library to open a window on X11. Install it (Debian/Ubuntu: "
                "`sudo apt install libxcb-cursor0`) and start again."
            )
    return None


def _quiet_qt_messages() -> None:
    """Route Qt's own messages to the log; drop the offscreen plugin's harmless notices."""
    from PySide6.QtCore import QtMsgType, qInstallMessageHandler

    qt_log = logging.getLogger("qt")
    levels = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }

    def handler(kind, _context, message: str) -> None:
        if "propagateSizeHints" in message:
            return
        qt_log.log(levels.get(kind, logging.WARNING), "%s", message)

    qInstallMessageHandler(handler)


def _close_on_sigint(window: QMainWindow) -> Callable[[], None]:
    """Ctrl+C in the terminal closes the window like Ctrl+Q (cancel the turn, keep the chat, exit 0).

    Python runs a signal handler only once the interpreter gets control, and an idle window sits in Qt's
    event loop. So the signal's C handler also writes to a socket (``signal.set_wakeup_fd``) that a
    ``QSocketNotifier`` watches: the loop wakes when a signal arrives, and only then — no polling timer.
    Returns what puts the previous handler and wakeup fd back."""
    import signal
    import socket

    from PySide6.QtCore import QSocketNotifier

    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    reader, writer = socket.socketpair()
    for end in (reader, writer):
        end.setblocking(False)
    try:
        previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:  # pragma: no cover - only the main thread may set it, checked above
        reader.close()
        writer.close()
        return lambda: None
    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read, window)

    def drain() -> None:  # the Python handler runs as this slot enters the interpreter
        with contextlib.suppress(OSError):
            while reader.recv(512):
                pass

    notifier.activated.connect(drain)
    close = getattr(window, "quit", window.close)  # quits also when closing the window would hide it to the tray
    previous_handler = signal.signal(signal.SIGINT, lambda *_: QTimer.singleShot(0, close))

    def restore() -> None:
        notifier.setEnabled(False)
        signal.signal(signal.SIGINT, previous_handler)
        signal.set_wakeup_fd(previous_fd)
        reader.close()
        writer.close()

    return restore


def _watch_cursor_blink(app: QApplication, window: MainWindow) -> None:
    from desktop_agent.ui.cursor_blink import BlinkTimeout  # after the first frame, like what it watches

    BlinkTimeout(app, window).watch(window.input)


def _start_logging() -> None:
    """The log file and the hook that reports uncaught exceptions (idempotent)."""
    from desktop_agent import __version__
    from desktop_agent.ui import errors as ui_errors

    log_path = ui_errors.setup_logging()
    ui_errors.install_excepthook()
    log.info("starting desktop-agent %s (log: %s)", __version__, log_path)


def _first_request(window: MainWindow, request: dict[str, Any]) -> None:
    """What this start was asked for: the window (it notes its first frame for the bench, ui/first_frame.py), or
    the quick-ask window alone (the main window is built, hidden, and shows when the chat is opened in it)."""
    if request.get("action") == "ask":
        from desktop_agent.ui.quick_ask import quick_ask_of

        window.startup.start()  # no frame of the main window to wait for
        quick_ask_of(window).present(str(request.get("text") or ""))
        return
    window.show()


def _on_request(window: MainWindow, request: dict[str, Any]) -> None:
    """A later start's request (the single-instance channel): the window comes to the front, or the quick-ask
    window does (asking its text at once, if any). The start's activation token goes with it: Qt's Wayland plugin
    activates the window with ``XDG_ACTIVATION_TOKEN`` (a compositor ignores an activation without one)."""
    tokens = {key: request[key] for key in ACTIVATION_ENV if request.get(key)}
    os.environ.update(tokens)
    if tokens:
        log.info("the later start passed the desktop's activation token (%s)", ", ".join(tokens))
    if request.get("action") == "ask":
        from desktop_agent.ui.quick_ask import quick_ask_of

        quick_ask_of(window).present(str(request.get("text") or ""))
        return
    window.bring_to_front()


def run_gui(argv: list[str] | None = None, settings_overrides: dict[str, Any] | None = None, *,
            request: dict[str, Any] | None = None, single: bool = True) -> int:
    """Create the application, show the main window, run the event loop; returns the exit code.

    ``settings_overrides``: dotted settings from the command line (not saved). Only PySide6 and light core
    modules are imported before the window shows. Returns 1 with a one-line reason on stderr when no
    window can be opened here (no display, missing xcb library). ``request``: what this start asks for —
    ``{"action": "show"}`` (the window, the default) or ``{"action": "ask", "text": …}`` (the quick-ask window).
    With ``single`` (the default) an app already running for the data folder gets the request instead
    (:mod:`desktop_agent.ui.single_instance`) and this start returns 0 (1 when it does not answer)."""
    request = dict(request or {"action": "show"})
    # the desktop's permission to raise a window (Wayland's xdg-activation, X11's startup id), for the running app
    request.update({key: os.environ[key] for key in ACTIVATION_ENV if os.environ.get(key)})
    if QApplication.instance() is None:
        problem = display_problem()
        if problem:
            print(f"desktop-agent: {problem}", file=sys.stderr)
            return 1
    # an existing instance is this program's (or a test's) QApplication
    arguments = list(argv) if argv else [sys.argv[0] if sys.argv else APP_NAME]
    app = cast(QApplication, QApplication.instance() or theme.new_application(arguments))
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationDisplayName(APP_DISPLAY_NAME)
    app.setDesktopFileName(APP_NAME)
    from desktop_agent import __version__

    app.setApplicationVersion(__version__)
    _quiet_qt_messages()
    instance = None
    if single:
        from desktop_agent.ui import single_instance

        found = single_instance.claim(request)
        if found.handed_over:
            return 0
        if found.problem:
            print(f"desktop-agent: {found.problem}", file=sys.stderr)
            return 1
        instance = found.server
    from desktop_agent.core.settings_glance import glance

    # the first frame from a glance at the settings file; the window loads them (and the rest) after it.
    # Command-line settings or a file only the schema can read: loaded first, as before.
    seen = None if settings_overrides else glance()
    if seen is not None:
        i18n.install(seen.appearance.language, app)  # before any window text is built (a .qm loads in ~1 ms)
        theme.apply(app, seen.appearance.theme, contrast_later=True)  # a dark palette's style: after the frame
        app.setWindowIcon(icons.app_icon())
        window = MainWindow(glance=seen)
    else:
        from desktop_agent.core.services import Services

        services = Services(settings_overrides)
        layered = services.layered
        i18n.install(layered.effective.appearance.language, app)
        theme.apply(app, layered.effective.appearance.theme)
        app.setWindowIcon(icons.app_icon())
        window = MainWindow(layered.effective, saved=layered.saved, warnings=list(layered.warnings),
                            services=services)
    app.aboutToQuit.connect(window.shutdown)
    if instance is not None:
        instance.setParent(window)
        instance.request.connect(lambda asked: _on_request(window, asked))
        app.aboutToQuit.connect(instance.close)
    _first_request(window, request)
    # Ctrl+C before the first frame ends the start-up like any Ctrl+C at start (exit 130, app.main); from the
    # first frame on — when the log says "starting" — it closes the window
    restore_sigint: list[Callable[[], None]] = []

    def app_stage() -> None:
        restore_sigint.append(_close_on_sigint(window))
        theme.apply_contrast(app)
        _start_logging()
        if instance is not None:
            log.info("%s", instance.describe())
        _watch_cursor_blink(app, window)

    # one of the window's start-up stages: with its services (the same turn of the event loop), before the store
    window.startup.add(Stage("application", app_stage, together=True), after="services")
    try:
        code = app.exec()
    finally:
        for restore in restore_sigint:
            restore()
    window.shutdown()
    from desktop_agent.ui.agent_runner import orphaned_threads

    if orphaned_threads():
        # A worker is stuck in a blocking call we could not interrupt. Destroying its QThread would
        # abort the process ("QThread: Destroyed while thread is still running"); leave without that.
        log.error("exiting with a worker thread still running")
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
