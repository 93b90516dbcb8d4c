"""Settings → MCP, a remote server's sign-in (OAuth): its state — not signed in, waiting for the browser, signed in
at an issuer — with Sign in / Cancel / Sign out, and the client id the user registered with the server's
authorization server, if any. The work (keyring, network, the browser's redirect) runs on the dialog's task runner;
see :mod:`desktop_agent.core.mcp.oauth`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from desktop_agent.ui.i18n import translate, translate_text
from desktop_agent.ui.settings.common import show

if TYPE_CHECKING:
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.settings import McpServerSettings
    from desktop_agent.ui.tasks import TaskRunner

SIGNED_OUT, WAITING, SIGNED_IN, CHECKING = "signed out", "waiting", "signed in", "checking"


class SignInBox(QWidget):
    """The sign-in of the server shown (:meth:`show_server`; hidden for a local one). ``on_client_id(name, id)``
    is called when the user edits the client id (the page keeps it with the server, saved with the dialog);
    ``on_signed(name)`` after a sign-in or sign-out (the page restarts the server so it uses it)."""

    _open = Signal(str)
    _waiting = Signal()

    def __init__(self, secrets: SecretStore | None, tasks: TaskRunner | None,
                 on_client_id: Callable[[str, str], None], on_signed: Callable[[str], None]) -> None:
        super().__init__()
        self._secrets, self._tasks = secrets, tasks
        self._on_client_id, self._on_signed = on_client_id, on_signed
        self._server: McpServerSettings | None = None
        self.state = SIGNED_OUT
        #: the browser opener (tests replace it: they drive the authorization page themselves)
        self.open_url: Callable[[str], Any] = lambda url: QDesktopServices.openUrl(QUrl(url))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        row = QHBoxLayout()
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setAccessibleName(translate("McpSignIn", "Sign-in status"))
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.status, 1)
        self.sign_in_button = QPushButton(translate("McpSignIn", "Sign &in…"))
        self.sign_in_button.setAccessibleName(translate("McpSignIn", "Sign in to the selected MCP server"))
        self.cancel_button = QPushButton(translate("McpSignIn", "Cancel sign-in"))
        self.sign_out_button = QPushButton(translate("McpSignIn", "Sign &out"))
        self.sign_out_button.setAccessibleName(translate("McpSignIn", "Sign out of the selected MCP server"))
        for b in (self.sign_in_button, self.cancel_button, self.sign_out_button):
            b.setAutoDefault(False)
            row.addWidget(b)
        layout.addLayout(row)
        client = QHBoxLayout()
        client_label = QLabel(translate("McpSignIn", "Client ID:"))
        self.client_id = QLineEdit()
        self.client_id.setPlaceholderText(translate("McpSignIn", "optional: one you registered with the server"))
        self.client_id.setAccessibleName(translate("McpSignIn", "OAuth client ID registered for this server"))
        client_label.setBuddy(self.client_id)
        client.addWidget(client_label)
        client.addWidget(self.client_id, 1)
        layout.addLayout(client)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        self.message.setAccessibleName(translate("McpSignIn", "Sign-in result"))
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.message)

        self.sign_in_button.clicked.connect(self.sign_in)
        self.cancel_button.clicked.connect(self.cancel)
        self.sign_out_button.clicked.connect(self.sign_out)
        self.client_id.editingFinished.connect(self._client_id_edited)
        self._open.connect(lambda url: self.open_url(url), Qt.ConnectionType.QueuedConnection)
        self._waiting.connect(lambda: self._set(WAITING), Qt.ConnectionType.QueuedConnection)
        self._set(SIGNED_OUT)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # never squeezed by the list

    # ---- what is shown ---------------------------------------------------------------------------------

    def show_server(self, server: McpServerSettings | None) -> None:
        """Show the sign-in of ``server`` (hidden when it is None or a local server)."""
        same = self._server is not None and server is not None and self._server.name == server.name
        self._server = server
        remote = server is not None and bool(server.url)
        self.setVisible(remote)
        if not remote or server is None:
            return
        if self.client_id.text() != server.oauth_client_id:
            self.client_id.setText(server.oauth_client_id)
        if same:  # the page refilled (a state changed): what is shown still holds
            return
        show(self.message, None)
        self.refresh()

    def refresh(self) -> None:
        """Read from the keyring (in the background) whether the server is signed in to."""
        server = self._server
        if server is None or self._secrets is None or self._tasks is None:
            return
        secrets = self._secrets
        self._set(CHECKING)

        def work(_task: Any) -> Any:
            from desktop_agent.core.mcp.oauth import sign_in_state, with_server_secrets

            return sign_in_state(secrets, with_server_secrets(server, secrets).url)

        def done(result: Any, error: BaseException | None) -> None:
            if self._server is not server:
                return
            if error is not None or result is None:
                self._set(SIGNED_OUT)
            else:
                self._set(SIGNED_IN if result.signed_in else SIGNED_OUT, result.issuer)

        self._tasks.run(work, done, key="mcp-sign-in-state")

    def _set(self, state: str, issuer: str = "") -> None:
        self.state = state
        texts = {
            SIGNED_OUT: translate("McpSignIn", "Not signed in. If the server asks for a sign-in, press Sign in: "
                                  "your browser opens at its sign-in page."),
            WAITING: translate("McpSignIn", "Waiting for the browser… Sign in there and allow access, then come "
                               "back here."),
            SIGNED_IN: translate("McpSignIn", "Signed in at {issuer}. The tokens are in the system keyring and "
                                 "renewed on their own.").format(issuer=issuer),
            CHECKING: translate("McpSignIn", "Checking the sign-in…"),
        }
        show(self.status, texts[state], "ok" if state == SIGNED_IN else "info")
        self.sign_in_button.setVisible(state in (SIGNED_OUT, SIGNED_IN, CHECKING))
        self.sign_in_button.setText(translate("McpSignIn", "Sign &in again…") if state == SIGNED_IN
                                    else translate("McpSignIn", "Sign &in…"))
        self.sign_in_button.setEnabled(state != CHECKING and self._tasks is not None)
        self.cancel_button.setVisible(state == WAITING)
        self.sign_out_button.setVisible(state == SIGNED_IN)
        self.client_id.setEnabled(state != WAITING)

    def _client_id_edited(self) -> None:
        if self._server is not None and self.client_id.text().strip() != self._server.oauth_client_id:
            self._on_client_id(self._server.name, self.client_id.text().strip())

    # ---- sign in, cancel, sign out ---------------------------------------------------------------------

    def sign_in(self) -> None:
        """Sign in to the shown server: the browser opens; the box waits for it to come back."""
        server, secrets, tasks = self._server, self._secrets, self._tasks
        if server is None or secrets is None or tasks is None:
            return
        typed = self.client_id.text().strip()
        if typed != server.oauth_client_id:
            server = server.model_copy(update={"oauth_client_id": typed})
        show(self.message, None)
        self._set(WAITING)
        self.sign_in_button.setVisible(False)
        opened, waiting = self._open.emit, self._waiting.emit

        def work(task: Any) -> Any:
            from desktop_agent.core.mcp.oauth import sign_in

            return sign_in(server, secrets, opened, on_waiting=waiting, cancel=task.cancel_event)

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None or result is None:
                show(self.message, translate("McpSignIn", "The sign-in failed: {error}").format(error=error), "err")
                self._set(SIGNED_OUT)
                return
            show(self.message, _sentence(translate_text(result.message)), "ok" if result.ok else "err")
            if result.ok:
                self._on_signed(server.name)
            self.refresh()

        tasks.run(work, done, key="mcp-sign-in")

    def cancel(self) -> None:
        if self._tasks is not None:
            self._tasks.cancel("mcp-sign-in")

    def sign_out(self) -> None:
        """Revoke and forget the shown server's tokens."""
        server, secrets, tasks = self._server, self._secrets, self._tasks
        if server is None or secrets is None or tasks is None:
            return
        self.sign_out_button.setEnabled(False)

        def work(_task: Any) -> Any:
            from desktop_agent.core.mcp.oauth import sign_out

            return sign_out(server, secrets)

        def done(result: Any, error: BaseException | None) -> None:
            self.sign_out_button.setEnabled(True)
            text = _sentence(translate_text(result)) if error is None and result else translate(
                "McpSignIn", "The sign-out failed: {error}").format(error=error)
            show(self.message, text, "err" if error is not None else "info")
            self._on_signed(server.name)
            self.refresh()

        tasks.run(work, done, key="mcp-sign-out")


def _sentence(text: str) -> str:
    """A core message ("signed in to …") as a sentence of its own."""
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", "。")) else ".")
