"""One app per user and data folder: a second start hands its request to the running app and exits.

The running app listens on a :class:`QLocalServer` whose name is keyed by the user and the data folder (two data
folders are two apps, each with its own store — and tests with temporary folders never see each other). A start
first tries to connect (:func:`claim`):

- nobody listens: this process is the app; it listens (removing a socket file a crashed app left behind:
  ``QLocalServer.removeServer``) and its :class:`InstanceServer` hands each request on as :attr:`InstanceServer
  .request` (a dict: ``{"action": "show"}`` or ``{"action": "ask", "text": "…"}``);
- the app answers ("ok"): the request was handed over, this process exits 0;
- the app accepts the connection but does not answer within :data:`TIMEOUT_MS` (hung, or stopped in a
  debugger): this process says so and exits 1 — it never waits forever, and never opens a second window on the
  same store.

The check runs before the window is built, with a connect to a local socket (≈ 1 ms when no app runs; QtNetwork
is imported for it, ≈ 6 ms — see ``tests/gui/test_single_instance.py``). One JSON line each way; the reply is
``ok``. Only PySide6 and the standard library are imported here.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QApplication, QWidget

log = logging.getLogger(__name__)

#: how long a start waits for the running app (connect + answer) before it says it does not answer
TIMEOUT_MS = 2000
#: the longest request accepted (a quick-ask text pasted whole fits; anything longer is not ours)
MAX_REQUEST = 1 << 20
#: the longest question a start hands over (a line edit's limit): its request stays far below MAX_REQUEST
MAX_TEXT = 32_767


def server_name(data_folder: str | os.PathLike[str] | None = None) -> str:
    """The local server's name for this user and ``data_folder`` (default: the app's data folder): a socket in
    ``$XDG_RUNTIME_DIR`` when there is one, else a name Qt puts in the temporary folder."""
    if data_folder is None:
        from desktop_agent.core import paths

        data_folder = paths.data_dir()
    folder = os.path.realpath(os.fspath(data_folder))
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no name for the uid (a container): the uid is as good
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    digest = hashlib.sha256(f"{user}\0{folder}".encode()).hexdigest()[:16]
    safe_user = "".join(c for c in user if c.isalnum())[:16] or "user"
    name = f"desktop-agent-{safe_user}-{digest}"
    # the user's own runtime folder (only they can enter it) when the desktop gives one; else Qt's temporary folder
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime) and os.access(runtime, os.W_OK | os.X_OK):
        return os.path.join(runtime, name)
    return name


@dataclass(frozen=True)
class Claim:
    """What :func:`claim` found. ``server``: this process is the app (listening); ``handed_over``: the running app
    took the request; ``problem``: the running app did not answer (a sentence for the user)."""

    server: InstanceServer | None = None
    handed_over: bool = False
    problem: str = ""


def claim(request: dict[str, Any], name: str | None = None, timeout_ms: int = TIMEOUT_MS) -> Claim:
    """Hand ``request`` to the app running for this data folder, or become that app (see the module's doc)."""
    t0 = time.perf_counter()
    name = name or server_name()
    text = request.get("text")
    if isinstance(text, str) and len(text) > MAX_TEXT:  # what the quick ask's line holds; the rest is dropped
        request = {**request, "text": text[:MAX_TEXT]}
    sent = _send(name, request, timeout_ms)
    if sent is True:
        return Claim(handed_over=True)
    if sent is False:
        return Claim(problem=(
            f"Desktop Agent is already running for this data folder but does not answer (waited "
            f"{timeout_ms / 1000:g} s). Close it (or end it in a task manager) and start again."))
    server = InstanceServer(name)
    if not server.listen(stale=sent == STALE):
        # another start won the race meanwhile: hand it the request after all
        if _send(name, request, timeout_ms) is True:
            return Claim(handed_over=True)
        log.warning("single instance: could not listen on %s (%s); running without it", name, server.error)
        return Claim()
    server.check_ms = (time.perf_counter() - t0) * 1000
    return Claim(server=server)


#: what :func:`_send` finds when a socket file is there with nobody behind it (a crashed app's)
STALE = "stale"


def _send(name: str, request: dict[str, Any], timeout_ms: int) -> bool | str | None:
    """True: the app took ``request``; False: it is there but did not answer in time; None: no app listens
    (:data:`STALE`: and a crashed app left its socket file)."""
    sock = QLocalSocket()
    sock.connectToServer(name)
    if not sock.waitForConnected(timeout_ms):
        error = sock.error()
        if error == QLocalSocket.LocalSocketError.SocketTimeoutError:
            return False
        return STALE if error == QLocalSocket.LocalSocketError.ConnectionRefusedError else None
    line = json.dumps(request).encode() + b"\n"
    sock.write(line)
    answer = b""
    # the kernel accepts the connection for a hung app too (its backlog): only an answer tells it lives
    deadline = time.monotonic() + timeout_ms / 1000
    while b"\n" not in answer:
        left = int((deadline - time.monotonic()) * 1000)
        if left <= 0 or (not sock.waitForReadyRead(left) and sock.bytesAvailable() == 0):
            if sock.state() != QLocalSocket.LocalSocketState.ConnectedState and not answer:
                return None if left > 0 else False  # closed at once: not an app of ours
            sock.abort()
            return False
        answer += bytes(sock.readAll().data())
    sock.disconnectFromServer()
    return answer.strip() == b"ok"


class InstanceServer(QObject):
    """The running app's end: each request of a later start, as :attr:`request` (in the GUI thread)."""

    #: a later start's request: ``{"action": "show"}`` or ``{"action": "ask", "text": str}``
    request = Signal(dict)

    def __init__(self, name: str, parent: QObject | None = None):
        super().__init__(parent)
        self.name = name
        self.error = ""
        #: a socket file a crashed app left was removed to listen
        self.stale_removed = False
        #: how long the start's check took (ms), noted by :func:`claim`
        self.check_ms = 0.0
        self._server = QLocalServer(self)
        # no UserAccessOption: with it Qt binds elsewhere and renames the socket over the path, so listening
        # succeeds where an app already listens (two apps on one store); the socket is in the user's own runtime
        # folder (0700) when the desktop gives one, and its name is the user's
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self, stale: bool = False) -> bool:
        """Listen. ``stale``: a socket file is there with nobody behind it (a crashed app's): removed first."""
        if stale:
            QLocalServer.removeServer(self.name)
            self.stale_removed = True
        if self._server.listen(self.name):
            return True
        self.error = self._server.errorString()
        return False

    def describe(self) -> str:
        """A line for the log (written once logging runs, after the first frame)."""
        stale = "; removed the stale socket a crashed app left" if self.stale_removed else ""
        return f"single instance: listening as {self.name} (the check took {self.check_ms:.1f} ms){stale}"

    @property
    def listening(self) -> bool:
        return self._server.isListening()

    def close(self) -> None:
        self._server.close()

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            self._buffers[sock] = b""
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._forget(s))
            if sock.bytesAvailable():
                self._read(sock)

    def _forget(self, sock: QLocalSocket) -> None:
        self._buffers.pop(sock, None)
        sock.deleteLater()

    def _read(self, sock: QLocalSocket) -> None:
        data = self._buffers.get(sock, b"") + bytes(sock.readAll().data())
        if b"\n" not in data:
            if len(data) > MAX_REQUEST:
                sock.abort()
            else:
                self._buffers[sock] = data
            return
        line = data.split(b"\n", 1)[0]
        self._buffers[sock] = b""
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        if not isinstance(request, dict) or request.get("action") not in ("show", "ask") or not all(
                isinstance(v, str) for v in request.values()):
            log.warning("single instance: ignored a request that is not ours (%d bytes)", len(line))
            sock.write(b"unknown\n")
            sock.flush()
            sock.disconnectFromServer()
            return
        sock.write(b"ok\n")
        sock.flush()
        sock.disconnectFromServer()
        log.info("single instance: another start asked to %s", request["action"])
        self.request.emit(request)


def raise_window(window: QWidget) -> None:
    """Show ``window`` (restored if minimised or hidden) above the others, with the focus: another start of the app
    asked for it. On Wayland the compositor may only mark it as wanting attention."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()
    windows = sum(type(w).__name__ == "MainWindow" for w in QApplication.topLevelWidgets())
    log.info("brought to the front at another start's request (main windows in this app: %d)", windows)
