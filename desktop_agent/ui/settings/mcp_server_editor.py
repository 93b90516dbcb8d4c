"""The MCP server editor (Add / Edit on the MCP servers page): a name, then either a program to run (stdio:
command, arguments, environment rows, working folder) or a remote server (Streamable HTTP URL, header rows).
Rows marked secret give their values to the caller for the keyring; they never go into the settings. Every
problem is said next to its field and OK does nothing until they are fixed."""

from __future__ import annotations

import shlex

from pydantic import ValidationError
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.mcp.config import hide_secrets, secret_name
from desktop_agent.core.settings import McpServerSettings
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import field_message, form_row, hint_label, note_label, show
from desktop_agent.ui.settings.kv_rows import KeyValueRows, Row


class McpServerEditor(QDialog):
    """Edit ``server`` (None: a new one). ``taken``: the other servers' names; ``stored``: the keyring names of
    the secrets that are set. After OK, :attr:`result_server` is the server and :attr:`new_secrets` the values
    typed for its secret rows (keyring name → value)."""

    def __init__(self, server: McpServerSettings | None, taken: set[str], stored: set[str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("McpServerEditor", "Edit MCP server") if server is not None else translate(
                "McpServerEditor", "Add MCP server"))
        self.setObjectName("McpServerEditor")
        self._taken = set(taken)
        self.result_server: McpServerSettings | None = None
        self.new_secrets: dict[str, str] = {}

        root = QVBoxLayout(self)
        form = QFormLayout()
        root.addLayout(form)
        self.name = QLineEdit()
        self.name.setAccessibleName(translate("McpServerEditor", "Server name"))
        self.name.setPlaceholderText(translate("McpServerEditor", "e.g. github"))
        self.name_error = note_label(translate("McpServerEditor", "Server name error"))
        form_row(form, translate("McpServerEditor", "&Name:"), self.name, self.name_error,
                 hint_label(translate("McpServerEditor",
                         "Letters, digits, '.', '_' and '-'; its tools are named after it.")))

        kind_row = QHBoxLayout()
        self.stdio_radio = QRadioButton(translate("McpServerEditor", "&Program on this computer (stdio)"))
        self.remote_radio = QRadioButton(translate("McpServerEditor", "&Remote server (Streamable HTTP)"))
        self._kinds = QButtonGroup(self)
        self._kinds.addButton(self.stdio_radio)
        self._kinds.addButton(self.remote_radio)
        kind_row.addWidget(self.stdio_radio)
        kind_row.addWidget(self.remote_radio)
        kind_row.addStretch(1)
        self.kind_error = note_label(translate("McpServerEditor", "Server type error"))
        form_row(form, translate("McpServerEditor", "Type:"), kind_row, self.kind_error, buddy=self.stdio_radio)

        self.stack = QStackedWidget()
        root.addWidget(self.stack, 1)

        stdio = QWidget()
        stdio_form = QFormLayout(stdio)
        stdio_form.setContentsMargins(0, 0, 0, 0)
        command_row = QHBoxLayout()
        self.command = QLineEdit()
        self.command.setAccessibleName(translate("McpServerEditor", "Command"))
        self.command.setPlaceholderText(translate("McpServerEditor", "e.g. npx, uvx, /usr/local/bin/my-server"))
        self.browse = QPushButton(translate("McpServerEditor", "Bro&wse…"))
        self.browse.setAutoDefault(False)
        command_row.addWidget(self.command, 1)
        command_row.addWidget(self.browse)
        self.command_error = note_label(translate("McpServerEditor", "Command error"))
        form_row(stdio_form, translate("McpServerEditor", "&Command:"), command_row, self.command_error,
                buddy=self.command)
        self.args = QLineEdit()
        self.args.setAccessibleName(translate("McpServerEditor", "Arguments"))
        self.args.setPlaceholderText(translate("McpServerEditor",
                "e.g. -y @modelcontextprotocol/server-filesystem ~/Documents"))
        self.args_error = note_label(translate("McpServerEditor", "Arguments error"))
        form_row(stdio_form, translate("McpServerEditor", "&Arguments:"), self.args, self.args_error,
                 hint_label(translate("McpServerEditor",
                         "Separated by spaces; put an argument that has spaces in quotes.")))
        self.env = KeyValueRows(translate("McpServerEditor", "environment variable"), "NAME")
        self.env_error = note_label(translate("McpServerEditor", "Environment error"))
        form_row(stdio_form, translate("McpServerEditor", "&Environment:"), self.env, self.env_error,
                 hint_label(translate("McpServerEditor",
                         "Tick Secret for a token or key: its value goes to the system keyring, not the "
                            "settings file.")), buddy=self.env.add_button)
        cwd_row = QHBoxLayout()
        self.cwd = QLineEdit()
        self.cwd.setAccessibleName(translate("McpServerEditor", "Working folder"))
        self.cwd.setPlaceholderText(translate("McpServerEditor", "(the app's own)"))
        self.choose_cwd = QPushButton(translate("McpServerEditor", "C&hoose…"))
        self.choose_cwd.setAutoDefault(False)
        cwd_row.addWidget(self.cwd, 1)
        cwd_row.addWidget(self.choose_cwd)
        form_row(stdio_form, translate("McpServerEditor", "Working &folder:"), cwd_row, buddy=self.cwd)
        self.stack.addWidget(stdio)

        remote = QWidget()
        remote_form = QFormLayout(remote)
        remote_form.setContentsMargins(0, 0, 0, 0)
        self.url = QLineEdit()
        self.url.setAccessibleName(translate("McpServerEditor", "Server URL"))
        self.url.setPlaceholderText("https://example.com/mcp")
        self.url_error = note_label(translate("McpServerEditor", "Server URL error"))
        form_row(remote_form, "&URL:", self.url, self.url_error)
        self.headers = KeyValueRows(translate("McpServerEditor", "header"), translate("McpServerEditor", "Name"))
        self.headers_error = note_label(translate("McpServerEditor", "Headers error"))
        form_row(remote_form, translate("McpServerEditor", "&Headers:"), self.headers, self.headers_error,
                 hint_label(translate("McpServerEditor", "e.g. Authorization = Bearer …, ticked Secret.")),
                         buddy=self.headers.add_button)
        self.stack.addWidget(remote)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        root.addWidget(self.buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.stdio_radio.toggled.connect(self._kind_toggled)
        self.browse.clicked.connect(self._browse_command)
        self.choose_cwd.clicked.connect(self._choose_cwd)

        self._load(server, stored)
        self.resize(640, 520)

    # ---- in -----------------------------------------------------------------------------------------

    def _load(self, server: McpServerSettings | None, stored: set[str]) -> None:
        self._loaded = server
        s = server or McpServerSettings.model_construct(name="", enabled=True, command="", args=[], env={}, cwd="",
                                                        url="", headers={}, secret_env=[], secret_headers=[])
        self.name.setText(s.name)
        remote = bool(s.url)
        (self.remote_radio if remote else self.stdio_radio).setChecked(True)
        self._kind_toggled(not remote)
        self.command.setText(s.command)
        self.args.setText(shlex.join(s.args))
        self.cwd.setText(s.cwd)
        self.url.setText(s.url)
        self._enabled = s.enabled
        self.env.set_rows(s.env, s.secret_env, {n for n in s.secret_env if secret_name(s.name, "env", n) in stored})
        self.headers.set_rows(s.headers, s.secret_headers,
                              {n for n in s.secret_headers if secret_name(s.name, "header", n) in stored})

    def _kind_toggled(self, stdio: bool) -> None:
        self.stack.setCurrentIndex(0 if stdio else 1)

    def _browse_command(self) -> None:
        path, _filter = QFileDialog.getOpenFileName(self, translate("McpServerEditor", "Choose the server's program"))
        if path:
            self.command.setText(path)

    def _choose_cwd(self) -> None:
        path = QFileDialog.getExistingDirectory(self, translate("McpServerEditor", "Choose the working folder"),
                self.cwd.text())
        if path:
            self.cwd.setText(path)

    # ---- out ----------------------------------------------------------------------------------------

    def accept(self) -> None:  # Qt's: OK
        server, secrets = self.check()
        if server is None:
            return
        self.result_server, self.new_secrets = server, secrets
        super().accept()

    def check(self) -> tuple[McpServerSettings | None, dict[str, str]]:
        """The server as typed and its typed secrets; (None, {}) with each problem shown by its field."""
        errors: dict[str, str] = {}
        name = self.name.text().strip()
        if name in self._taken:
            errors["name"] = translate("McpServerEditor", "There is already a server called {name}.").format(name=name)
        stdio = self.stdio_radio.isChecked()
        if stdio and not self.command.text().strip():
            errors["command"] = translate("McpServerEditor", "Type the command that starts the server.")
        if not stdio and not self.url.text().strip():
            errors["url"] = translate("McpServerEditor", "Type the server's URL, e.g. https://example.com/mcp.")
        args: list[str] = []
        env: tuple[dict[str, str], list[str], dict[str, str]] = ({}, [], {})
        headers: tuple[dict[str, str], list[str], dict[str, str]] = ({}, [], {})
        if stdio:
            try:
                args = shlex.split(self.args.text())
            except ValueError as exc:
                errors["args"] = translate("McpServerEditor",
                        "The arguments cannot be read ({exc}): close every quote.").format(exc=exc)
            env = _split_rows(self.env.rows(), errors, "env")
        else:
            headers = _split_rows(self.headers.rows(), errors, "headers")
        fields = {
            "name": name, "enabled": self._enabled,
            "command": self.command.text().strip() if stdio else "", "args": args if stdio else [],
            "env": env[0], "secret_env": env[1], "cwd": self.cwd.text().strip() if stdio else "",
            "url": "" if stdio else self.url.text().strip(), "headers": headers[0], "secret_headers": headers[1],
        }
        old = self._loaded
        # an imported server's secret arguments and URL credentials stay in the keyring while those are unchanged
        if old is not None and stdio and args == old.args:
            fields["secret_args"] = list(old.secret_args)
        if old is not None and not stdio and fields["url"] == old.url:
            fields["secret_url"] = old.secret_url
        server: McpServerSettings | None = None
        try:
            server = McpServerSettings(**fields)
        except ValidationError as exc:
            for err in exc.errors():
                loc = str(err["loc"][0]) if err.get("loc") else ""
                msg = field_message(err["msg"])
                if loc == "name":
                    errors.setdefault("name", "A name is needed." if not name else
                                      "Use only letters, digits, '.', '_' and '-' (at most 40).")
                elif not loc and "needs either" in msg:
                    errors.setdefault("command" if stdio else "url",
                                      "Type the command that starts the server." if stdio else
                                      "Type the server's URL.")
                elif not loc:
                    errors.setdefault("command" if stdio else "url", msg)
                else:
                    errors.setdefault(loc, msg)
        show(self.name_error, errors.get("name"), "err")
        show(self.command_error, errors.get("command"), "err")
        show(self.args_error, errors.get("args"), "err")
        show(self.env_error, errors.get("env"), "err")
        show(self.url_error, errors.get("url"), "err")
        show(self.headers_error, errors.get("headers"), "err")
        if errors or server is None:
            return None, {}
        server, secrets = hide_secrets(server)
        secrets.update({secret_name(name, "env", k): v for k, v in env[2].items()})
        secrets.update({secret_name(name, "header", k): v for k, v in headers[2].items()})
        return server, secrets


def _split_rows(rows: list[Row], errors: dict[str, str],
                where: str) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """Rows as (plain name → value, secret names, typed secret values); a nameless or repeated row is an error
    in ``errors[where]``."""
    plain: dict[str, str] = {}
    secret: list[str] = []
    typed: dict[str, str] = {}
    seen: set[str] = set()
    for row in rows:
        if not row.name:
            errors.setdefault(where, "Every row with a value needs a name.")
            continue
        if row.name in seen:
            errors.setdefault(where, f"{row.name} is there twice.")
            continue
        if any(ch.isspace() for ch in row.name) or "=" in row.name:
            errors.setdefault(where, f"The name {row.name!r} cannot have spaces or '='.")
            continue
        seen.add(row.name)
        if row.secret:
            secret.append(row.name)
            if row.value:
                typed[row.name] = row.value
        else:
            plain[row.name] = row.value
    return plain, secret, typed


def describe(server: McpServerSettings) -> str:
    """What runs: ``stdio: npx -y server`` / ``remote: https://…``."""
    if server.url:
        return translate("McpServerEditor", "remote: {url}").format(url=server.url)
    return translate("McpServerEditor", "stdio: {command}").format(command=shlex.join([server.command, *server.args]))

