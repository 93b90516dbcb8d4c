"""The Settings dialog's MCP servers page: the configured servers with their live status (starting, ready (n
tools), failed — why, with the last lines of its output, stopped, disabled), a switch each, Add / Edit / Remove,
Restart, and Import Claude Desktop config…. The secrets of a server (environment variables and headers marked
secret) are shown as set / not set, replaced or cleared here, and kept in the OS keyring — written when the
dialog saves (:meth:`McpPage.save_secrets`), never into the settings file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
)

from desktop_agent.core.mcp.config import Imported, McpConfigError, fill_inputs, merged, read_servers, secret_name
from desktop_agent.core.mcp.secret_changes import secret_keys, secret_writes
from desktop_agent.core.secrets import SESSION_ONLY, SYSTEM_KEYRING
from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.ui import theme
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import SettingsPage, hint_label, note_label, show
from desktop_agent.ui.settings.mcp_inputs import InputsDialog
from desktop_agent.ui.settings.mcp_server_editor import McpServerEditor, describe
from desktop_agent.ui.settings.mcp_server_status import server_status
from desktop_agent.ui.settings.mcp_signin import SignInBox
from desktop_agent.ui.tasks import Task, TaskRunner

if TYPE_CHECKING:
    from desktop_agent.core.assembly import Assembly
    from desktop_agent.core.mcp.manager import ServerState
    from desktop_agent.core.secrets import SecretStore

NAME_COL, RUNS_COL, STATUS_COL = range(3)
NO_KEYRING_HINT = (
    "Secrets are kept for this session only: servers that need them will not get them after a restart. To keep "
    "them, install and unlock a Secret Service keyring (GNOME Keyring, KWallet) and restart the app — or untick "
    "Secret on the row to keep the value in the settings file, where anyone who can read your files can read it."
)


class McpPage(SettingsPage):
    """``mcp.enabled`` and ``mcp.servers``. ``assembly``: whose running servers are shown (live) and restarted;
    ``secrets``: where their secrets are read and saved; ``tasks``: the dialog's background runner (keyring reads
    and writes, restarts, imports). ``servers_ready`` is emitted when a server became ready (its tools are
    listed now)."""

    servers_ready = Signal()
    #: Install bundle… pressed: the window installs it (see desktop_agent.ui.mcp_bundle), then add_installed()
    install_bundle_requested = Signal()
    _state_changed = Signal(object)

    def __init__(self, assembly: Assembly | None, secrets: SecretStore | None, tasks: TaskRunner | None) -> None:
        super().__init__()
        self._assembly = assembly
        self._secrets = secrets
        self._tasks = tasks
        self._settings = Settings()
        self._servers: list[McpServerSettings] = []
        self._original: list[McpServerSettings] = []
        #: the name each server had when the page loaded (a renamed server takes its secrets along)
        self._origin: dict[str, str] = {}
        #: keyring names whose secret is stored; those read so far
        self._stored: set[str] = set()
        self._secrets_read = False
        #: secrets changed here, written on save: keyring name → new value (None: clear it)
        self._staged: dict[str, str | None] = {}
        self._unwatch: Callable[[], None] | None = None
        self._filling = False

        outer = QVBoxLayout(self)
        self.enabled = QCheckBox(translate("McpPage", "&Use MCP servers"))
        self.enabled.setAccessibleName(translate("McpPage", "Use MCP servers"))
        outer.addWidget(self.enabled)
        outer.addWidget(hint_label(translate("McpPage",
                "Model Context Protocol servers give the model more tools (files, git, "
                                   "databases, browsers…). They start in the background; each of their tools asks "
                                   "before it runs unless a rule allows it.")))

        self.keyring_note = note_label(translate("McpPage", "Where MCP secrets are kept"))
        outer.addWidget(self.keyring_note)

        self.tree = QTreeWidget()
        self.tree.setAccessibleName(translate("McpPage", "MCP servers"))
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels([translate("McpPage", "Server"), translate("McpPage", "Runs"), translate("McpPage",
                "Status")])
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setMinimumHeight(120)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(NAME_COL, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(RUNS_COL, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(RUNS_COL, 220)
        outer.addWidget(self.tree, 1)

        buttons = QHBoxLayout()
        self.add_button = QPushButton(translate("McpPage", "A&dd…"))
        self.add_button.setAccessibleName(translate("McpPage", "Add an MCP server"))
        self.edit_button = QPushButton(translate("McpPage", "&Edit…"))
        self.edit_button.setAccessibleName(translate("McpPage", "Edit the selected MCP server"))
        self.remove_button = QPushButton(translate("McpPage", "Re&move"))
        self.remove_button.setAccessibleName(translate("McpPage", "Remove the selected MCP server"))
        self.restart_button = QPushButton(translate("McpPage", "Res&tart"))
        self.restart_button.setAccessibleName(translate("McpPage", "Restart the selected MCP server"))
        self.import_button = QPushButton(translate("McpPage", "&Import from another app…"))
        self.import_button.setAccessibleName(translate("McpPage",
                "Import MCP servers from Claude Desktop, VS Code, Cursor or Zed"))
        self.import_button.setToolTip(translate("McpPage",
                "Claude Desktop's claude_desktop_config.json, VS Code's or Cursor's mcp.json, Zed's settings.json"))
        self.inputs_dialog: InputsDialog | None = None
        for b in (self.add_button, self.edit_button, self.remove_button, self.restart_button):
            b.setAutoDefault(False)
            buttons.addWidget(b)
        self.bundle_button = QPushButton(translate("McpPage", "Install &bundle…"))
        self.bundle_button.setToolTip(translate("McpPage", "Install an MCP server packaged as a .mcpb bundle"))
        self.bundle_button.clicked.connect(self.install_bundle_requested)
        buttons.addStretch(1)
        for b in (self.bundle_button, self.import_button):
            b.setAutoDefault(False)
            buttons.addWidget(b)
        outer.addLayout(buttons)
        self.servers_error = note_label(translate("McpPage", "MCP servers error"))
        outer.addWidget(self.servers_error)
        self.import_note = note_label(translate("McpPage", "Import result"))
        outer.addWidget(self.import_note)

        self.details = QGroupBox(translate("McpPage", "Selected server"))
        details = QVBoxLayout(self.details)
        self.status_line = QLabel()
        self.status_line.setWordWrap(True)
        self.status_line.setAccessibleName(translate("McpPage", "Server status"))
        self.status_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        details.addWidget(self.status_line)
        self.output_label = QLabel(translate("McpPage", "Last lines of its output:"))
        details.addWidget(self.output_label)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        self.output.setAccessibleName(translate("McpPage", "The server's last output lines"))
        self.output.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.output.setMaximumHeight(110)
        self.output.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        details.addWidget(self.output)
        self.secrets_label = QLabel(translate("McpPage", "Secrets (kept in the system keyring):"))
        details.addWidget(self.secrets_label)
        secrets_row = QHBoxLayout()
        self.secret_list = QListWidget()
        self.secret_list.setAccessibleName(translate("McpPage", "The server's secrets"))
        self.secret_list.setMaximumHeight(72)
        secrets_row.addWidget(self.secret_list, 1)
        secret_buttons = QVBoxLayout()
        self.replace_button = QPushButton(translate("McpPage", "Re&place…"))
        self.replace_button.setAccessibleName(translate("McpPage", "Replace the selected secret"))
        self.clear_button = QPushButton(translate("McpPage", "C&lear"))
        self.clear_button.setAccessibleName(translate("McpPage", "Clear the selected secret"))
        for b in (self.replace_button, self.clear_button):
            b.setAutoDefault(False)
            secret_buttons.addWidget(b)
        secret_buttons.addStretch(1)
        secrets_row.addLayout(secret_buttons)
        details.addLayout(secrets_row)
        self.sign_in_box = SignInBox(secrets, tasks, self._set_client_id, self._signed)
        details.addWidget(self.sign_in_box)
        self.details.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        outer.addWidget(self.details)

        self.fields = [(("mcp.servers", "mcp.enabled", "mcp"), self.servers_error, translate("McpPage",
                "MCP servers (MCP servers tab)"))]
        self.enabled.toggled.connect(self._enabled_toggled)
        self.tree.itemChanged.connect(self._item_changed)
        self.tree.itemSelectionChanged.connect(self._show_selected)
        self.tree.itemDoubleClicked.connect(lambda *_: self.edit_server())
        self.add_button.clicked.connect(lambda: self.add_server())
        self.edit_button.clicked.connect(lambda: self.edit_server())
        self.remove_button.clicked.connect(self.remove_server)
        self.restart_button.clicked.connect(self.restart_server)
        self.import_button.clicked.connect(lambda: self.import_config())
        self.secret_list.itemSelectionChanged.connect(self._update_buttons)
        self.replace_button.clicked.connect(lambda: self.replace_secret())
        self.clear_button.clicked.connect(self.clear_secret)
        self._state_changed.connect(self._on_state_changed, Qt.ConnectionType.QueuedConnection)
        if assembly is not None:
            emit = self._state_changed.emit
            self._unwatch = assembly.watch_mcp(lambda state: emit(state))

    # ---- values in and out -----------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        self._settings = settings
        self._servers = list(settings.mcp.servers)
        self._original = list(settings.mcp.servers)
        self._origin = {s.name: s.name for s in self._servers}
        self._staged.clear()
        self.enabled.setChecked(settings.mcp.enabled)
        self._enabled_toggled(settings.mcp.enabled)
        self._fill()
        self._read_secrets()

    def values(self) -> dict[str, Any]:
        return {"mcp.enabled": self.enabled.isChecked(), "mcp.servers": [s.model_dump() for s in self._servers]}

    def servers(self) -> list[McpServerSettings]:
        return list(self._servers)

    def shutdown(self) -> None:
        """Stop following the servers' states (the dialog closes)."""
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None

    def _enabled_toggled(self, on: bool) -> None:
        self.tree.setEnabled(on)
        self._fill()
        self.changed.emit()

    # ---- the list ---------------------------------------------------------------------------------

    def _states(self) -> dict[str, ServerState]:
        manager = self._assembly.current_mcp() if self._assembly is not None else None
        return {s.name: s for s in manager.states()} if manager is not None else {}

    def _running_config(self, name: str) -> McpServerSettings | None:
        manager = self._assembly.current_mcp() if self._assembly is not None else None
        if manager is None:
            return None
        return next((c for c in manager.configs if c.name == name), None)

    def status_of(self, server: McpServerSettings) -> tuple[str, str, ServerState | None]:
        """The server's status in words (short, and the long one for the details) and its state, if running."""
        was_started = server.name in {s.name for s in self._original if s.enabled} and self._settings.mcp.enabled
        return server_status(server, on=self.enabled.isChecked(), running=self._running_config(server.name),
                             state=self._states().get(server.name), was_started=was_started)

    def _fill(self) -> None:
        """Show the servers: rows are updated in place while the same servers are listed (a state change, a
        switch), made again when servers were added, removed or renamed."""
        selected = self.selected_name()
        items = [self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount())]
        same = [it.text(NAME_COL) for it in items if it is not None] == [s.name for s in self._servers]
        self._filling = True
        try:
            if not same:
                self.tree.clear()
                made = [QTreeWidgetItem() for _server in self._servers]
                for new_item in made:
                    new_item.setFlags(new_item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                self.tree.addTopLevelItems(made)
                items = list(made)
            colors = theme.current(self.palette())
            for item, server in zip(items, self._servers, strict=True):
                assert item is not None
                short, _long, state = self.status_of(server)
                item.setText(NAME_COL, server.name)
                item.setText(RUNS_COL, describe(server))
                item.setText(STATUS_COL, short)
                check = Qt.CheckState.Checked if server.enabled else Qt.CheckState.Unchecked
                if not same or item.checkState(NAME_COL) != check:
                    item.setCheckState(NAME_COL, check)
                item.setToolTip(RUNS_COL, describe(server))
                item.setToolTip(STATUS_COL, short + (f" · MCP {state.protocol}" if state is not None
                                                     and state.state == "ready" and state.protocol else ""))
                item.setData(NAME_COL, Qt.ItemDataRole.AccessibleTextRole, f"{server.name}: {short}")
                if state is not None and state.state == "failed":
                    item.setForeground(STATUS_COL, _brush(colors.err))
                elif state is not None and state.state == "ready" and short.startswith("ready"):
                    item.setForeground(STATUS_COL, _brush(colors.ok))
                else:
                    item.setForeground(STATUS_COL, self.palette().text())
                if not same and server.name == selected:
                    self.tree.setCurrentItem(item)
            if self.tree.currentItem() is None and self.tree.topLevelItemCount():
                first = self.tree.topLevelItem(0)
                if first is not None:
                    self.tree.setCurrentItem(first)
        finally:
            self._filling = False
        self._show_selected()

    def selected_name(self) -> str | None:
        item = self.tree.currentItem()
        return item.text(NAME_COL) if item is not None else None

    def select(self, name: str) -> None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None and item.text(NAME_COL) == name:
                self.tree.setCurrentItem(item)
                return

    def _server(self, name: str | None) -> McpServerSettings | None:
        return next((s for s in self._servers if s.name == name), None)

    def status_text(self, name: str) -> str:
        """The status column of server ``name`` ("" when there is no such server)."""
        server = self._server(name)
        return self.status_of(server)[0] if server is not None else ""

    def _show_selected(self) -> None:
        server = self._server(self.selected_name())
        self.details.setVisible(server is not None)
        if server is None:
            self._update_buttons()
            return
        self.details.setTitle(server.name)
        _short, long, state = self.status_of(server)
        show(self.status_line, long, "err" if state is not None and state.state == "failed" else "info")
        lines = state.stderr if state is not None else []
        self.output_label.setVisible(bool(lines))
        self.output.setVisible(bool(lines))
        self.output.setPlainText("\n".join(lines))
        self.secret_list.clear()
        keys = secret_keys(server)
        self.secrets_label.setVisible(bool(keys))
        self.secret_list.setVisible(bool(keys))
        self.replace_button.setVisible(bool(keys))
        self.clear_button.setVisible(bool(keys))
        old = self._origin.get(server.name) or server.name
        for key, kind, name in keys:
            what = translate("McpPage", "environment variable") if kind == "env" else "header"
            status = self.secret_status(key)
            if status == "not set" and secret_name(old, kind, name) in self._stored:
                status = "set"  # a renamed server takes its secrets along when the dialog saves
            item = QListWidgetItem(f"{name} ({what}): {status}")
            item.setData(Qt.ItemDataRole.UserRole, key)
            self.secret_list.addItem(item)
        self.sign_in_box.show_server(server)
        self._update_buttons()

    def secret_status(self, key: str) -> str:
        """``set`` / ``not set`` (and whether Save still has to write it) for the keyring name ``key``."""
        if key in self._staged:
            return translate("McpPage", "set (saved when you press Save)") if self._staged[key] else translate(
                    "McpPage", "cleared (when you press Save)")
        if not self._secrets_read:
            return "reading…"
        return "set" if key in self._stored else translate("McpPage", "not set")

    def _update_buttons(self) -> None:
        server = self._server(self.selected_name())
        on = server is not None
        self.edit_button.setEnabled(on)
        self.remove_button.setEnabled(on)
        running = on and server is not None and self._running_config(server.name) == server
        self.restart_button.setEnabled(bool(running) and self._tasks is not None)
        picked = self.secret_list.currentItem() is not None
        self.replace_button.setEnabled(picked)
        self.clear_button.setEnabled(picked)

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != NAME_COL:
            return
        name = item.text(NAME_COL)
        on = item.checkState(NAME_COL) == Qt.CheckState.Checked
        self._servers = [s.model_copy(update={"enabled": on}) if s.name == name else s for s in self._servers]
        self._fill()
        self.changed.emit()

    def set_server_enabled(self, name: str, on: bool) -> None:
        for i in range(self.tree.topLevelItemCount()):
            item = self.tree.topLevelItem(i)
            if item is not None and item.text(NAME_COL) == name:
                item.setCheckState(NAME_COL, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    # ---- live status ----------------------------------------------------------------------------------

    def _on_state_changed(self, state: ServerState | None) -> None:
        self._fill()
        if state is not None and state.state == "ready":
            self.servers_ready.emit()

    # ---- add, edit, remove ---------------------------------------------------------------------------

    def editor(self, server: McpServerSettings | None = None) -> McpServerEditor:
        """The editor for ``server`` (None: a new one), not shown yet."""
        taken = {s.name for s in self._servers if server is None or s.name != server.name}
        stored = {k for k in self._stored if self._staged.get(k, "x")} | {k for k, v in self._staged.items() if v}
        return McpServerEditor(server, taken, stored, self)

    def add_server(self, editor: McpServerEditor | None = None) -> None:
        """Ask for a new server (``editor``: one already filled in, tests) and add it."""
        dialog = editor or self.editor(None)
        if editor is None and not dialog.exec():
            return
        if dialog.result_server is None:
            return
        self._take(None, dialog.result_server, dialog.new_secrets)

    def edit_server(self, editor: McpServerEditor | None = None) -> None:
        """Edit the selected server (``editor``: one already filled in, tests)."""
        server = self._server(self.selected_name())
        if server is None:
            return
        dialog = editor or self.editor(server)
        if editor is None and not dialog.exec():
            return
        if dialog.result_server is None:
            return
        self._take(server, dialog.result_server, dialog.new_secrets)

    def _take(self, old: McpServerSettings | None, new: McpServerSettings, typed: dict[str, str]) -> None:
        if old is None:
            self._servers.append(new)
            self._origin[new.name] = new.name if new.name not in {s.name for s in self._original} else ""
        else:
            index = self._servers.index(old)
            self._servers[index] = new
            if old.name != new.name:
                self._origin[new.name] = self._origin.pop(old.name, old.name)
                prefix = f"mcp:{old.name}:"
                for key in [k for k in self._staged if k.startswith(prefix)]:
                    self._staged[f"mcp:{new.name}:" + key.removeprefix(prefix)] = self._staged.pop(key)
        self._staged.update(typed)
        self._fill()
        self.select(new.name)
        self.changed.emit()

    def remove_server(self) -> None:
        """Remove the selected server; its secrets are deleted from the keyring when the dialog saves."""
        server = self._server(self.selected_name())
        if server is None:
            return
        self._servers.remove(server)
        self._origin.pop(server.name, None)
        prefix = f"mcp:{server.name}:"
        for key in [k for k in self._staged if k.startswith(prefix)]:
            del self._staged[key]
        self._fill()
        self.changed.emit()

    def add_installed(self, server: McpServerSettings) -> None:
        """A bundle installed meanwhile (already saved, with its secrets): listed as saved, replacing the server
        of its name."""
        self._servers = [s for s in self._servers if s.name != server.name] + [server]
        self._original = [s for s in self._original if s.name != server.name] + [server]
        self._origin[server.name] = server.name
        self._fill()
        self.select(server.name)

    # ---- secrets ----------------------------------------------------------------------------------------

    def replace_secret(self, value: str | None = None) -> None:
        """A new value for the selected secret (``value``: given, else asked for, masked)."""
        item = self.secret_list.currentItem()
        if item is None:
            return
        key = str(item.data(Qt.ItemDataRole.UserRole))
        if value is None:
            value, ok = QInputDialog.getText(self, translate("McpPage", "Replace secret"), translate("McpPage",
                    "New value of {name}:").format(name=key.split(':', 3)[3]),
                                             QLineEdit.EchoMode.Password)
            if not ok or not value:
                return
        self._staged[key] = value
        self._show_selected()
        self.changed.emit()

    def clear_secret(self) -> None:
        """Clear the selected secret (deleted from the keyring when the dialog saves)."""
        item = self.secret_list.currentItem()
        if item is None:
            return
        self._staged[str(item.data(Qt.ItemDataRole.UserRole))] = None
        self._show_selected()
        self.changed.emit()

    def _read_secrets(self) -> None:
        store, tasks = self._secrets, self._tasks
        keys = [key for server in self._servers for key, _kind, _name in secret_keys(server)]
        if store is None or tasks is None:
            return
        if not keys:
            self._secrets_read = True
            return

        def work(_task: Task) -> tuple[set[str], str | None]:
            return {k for k in keys if store.get_secret(k)}, store.problem

        def done(result: Any, error: BaseException | None) -> None:
            self._secrets_read = True
            if error is None and result is not None:
                stored, problem = result
                self._stored |= stored
                self._show_keyring(problem)
            self._show_selected()

        tasks.run(work, done, key="mcp-secrets-read")

    def _show_keyring(self, problem: str | None) -> None:
        show(self.keyring_note, f"{problem} {NO_KEYRING_HINT}" if problem else None, "warn")
        self.secrets_label.setText(translate("McpPage",
                "Secrets (kept for this session only: no keyring):") if problem else
                                   translate("McpPage", "Secrets (kept in the system keyring):"))

    def save_secrets(self, on_saved: Callable[[bool], None], on_failed: Callable[[str], None]) -> bool:
        """Write the secrets changed here to the keyring (and delete those of removed servers and rows) in the
        background, then restart the running servers whose secrets changed while their settings did not (those
        whose settings changed restart when the window applies them); ``on_saved(lost)``: ``lost`` when the
        keyring could not take them (kept for this session only). False (and nothing happens) when there is
        nothing to write."""
        writes, copies = secret_writes(self._original, self._servers, self._origin, self._staged)
        store, assembly = self._secrets, self._assembly
        touched = {key.split(":", 3)[1] for key in [*writes, *copies]}
        final = {s.name: s for s in self._servers}
        if (not writes and not copies) or store is None or self._tasks is None:
            return False

        def work(_task: Task) -> tuple[bool, str | None]:
            lost = False
            for new, old in copies.items():
                value = store.get_secret(old)
                if value and store.set_secret(new, value) == SESSION_ONLY:
                    lost = True
            for key, value in writes.items():  # after the copies: a renamed server's old names are deleted here
                where = store.set_secret(key, value)
                if value and where != SYSTEM_KEYRING:
                    lost = True
            manager = assembly.current_mcp() if assembly is not None else None
            for config in list(manager.configs) if manager is not None else []:
                if manager is not None and config.name in touched and final.get(config.name) == config:
                    manager.restart(config.name)  # it reads its secrets when it starts
            return lost, store.problem

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None or result is None:
                on_failed(str(error))
                return
            lost, problem = result
            self._staged.clear()
            self._show_keyring(problem if lost else None)
            on_saved(lost)

        self._tasks.run(work, done, key="mcp-secrets-save")
        return True

    # ---- import ------------------------------------------------------------------------------------------

    def import_config(self, path: str | None = None) -> None:
        """Add the servers of a Claude Desktop config file (``path``: given, else asked for). Like every change
        here, they — and their secrets, which go to the keyring — are kept when the dialog saves; Cancel leaves
        everything as it was."""
        if path is None:
            start = Path.home() / ".config" / "Claude"
            path, _filter = QFileDialog.getOpenFileName(self, translate("McpPage", "Import MCP servers"), str(
                    start if start.is_dir()
                                                        else Path.home()), translate("McpPage",
                                                                "JSON files (*.json *.jsonc);;All files (*)"))
            if not path:
                return
        if self._tasks is None:
            return
        try:
            base = self._settings.updated({"mcp.servers": [s.model_dump() for s in self._servers]})
        except ValueError as exc:
            show(self.import_note, translate("McpPage", "Fix the servers listed first: {exc}").format(exc=exc), "err")
            return
        store = self._secrets
        self.import_button.setEnabled(False)
        show(self.import_note, translate("McpPage", "Importing…"), "info")

        def work(_task: Task) -> tuple[Settings, list[str], Imported, str | None]:
            found = read_servers(path)
            new, notes = merged(base, found.servers)
            problem = None
            if store is not None and (found.secrets or found.pending):
                _name = store.backend_name  # asks the keyring: where the secrets will go
                problem = store.problem
            return new, notes, found, problem

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None or result is None:
                self.import_button.setEnabled(True)
                why = str(error) if isinstance(error, McpConfigError | OSError | ValueError) else \
                    f"{type(error).__name__}: {error}"
                show(self.import_note, translate("McpPage", "Nothing was imported from {name}: {why}").format(
                        name=Path(path).name, why=why), "err")
                return
            found = result[2]
            if not found.prompts:
                self._imported(path, result, [])
                return
            self.inputs_dialog = InputsDialog(found.prompts, Path(path).name, self)  # its ${input:…} values
            self.inputs_dialog.finished.connect(lambda _code: self._imported(
                    path, result, fill_inputs(found, self.inputs_dialog.answers())))
            self.inputs_dialog.open()

        self._tasks.run(work, done, key="mcp-import")

    def _imported(self, path: str, result: Any, unset: list[str]) -> None:
        """Take the servers an import read (``result`` of its work), ``unset``: the inputs not given."""
        self.import_button.setEnabled(True)
        new, notes, found, problem = result
        names = {s.name for s in new.mcp.servers} - {s.name for s in self._servers}
        for server in found.servers:  # the file's secrets replace those typed here for its servers
            for key in [k for k in self._staged if k.startswith(f"mcp:{server.name}:")]:
                del self._staged[key]
        self._servers = list(new.mcp.servers)
        for name in names:
            self._origin.setdefault(name, name if name in {s.name for s in self._original} else "")
        self._staged.update(found.secrets)
        place = translate("McpPage",
                "this session only (there is no keyring)") if problem or self._secrets is None else translate(
                        "McpPage", "the system keyring")
        for key in found.secrets:
            server_name, kind, name = key.split(":", 3)[1:]
            what = {"header": translate("McpPage", "header"), "arg": translate("McpPage", "argument"),
                    "url": translate("McpPage", "URL")}.get(kind, translate("McpPage", "environment variable"))
            notes.append(translate("McpPage",
                    "the {what} {name} of {server_name} goes to {place} when you press Save, not to the settings "
                    "file").format(what=what, name=name, server_name=server_name, place=place))
        notes.extend([*found.notes, *unset])
        notes.extend(translate("McpPage", "skipped {line}").format(line=line) for line in found.skipped)
        lines = "\n".join(f"• {n[:1].upper()}{n[1:]}." for n in notes)
        kind = "warn" if problem or found.skipped or unset else "ok"
        show(self.import_note, translate("McpPage",
                "From {name} ({app}):\n{lines}\nPress Save to keep the servers and start them.").format(name=Path(
                        path).name, app=found.app, lines=lines), kind)
        self._show_keyring(problem)
        self._fill()
        self.changed.emit()

    # ---- restart ------------------------------------------------------------------------------------------

    def restart_server(self) -> None:
        """Restart the selected server (in the background); the list follows its state."""
        name = self.selected_name()
        manager = self._assembly.current_mcp() if self._assembly is not None else None
        if name is None or manager is None or self._tasks is None or name not in {c.name for c in manager.configs}:
            return
        self.restart_button.setEnabled(False)

        def done(_result: Any, error: BaseException | None) -> None:
            if error is not None:
                show(self.status_line, translate("McpPage", "{name} could not be restarted: {error}").format(name=name,
                        error=error), "err")
            self._fill()

        self._tasks.run(lambda _task: manager.restart(name), done, key=f"mcp-restart-{name}")


    # ---- sign-in (ui/settings/mcp_signin.py) ------------------------------------------------------------

    def _set_client_id(self, name: str, client_id: str) -> None:
        self._servers = [s.model_copy(update={"oauth_client_id": client_id}) if s.name == name else s
                         for s in self._servers]
        self.changed.emit()

    def _signed(self, name: str) -> None:
        """After a sign-in or out: the running server reconnects with it."""
        manager = self._assembly.current_mcp() if self._assembly is not None else None
        if manager is not None and self._tasks is not None and name in {c.name for c in manager.configs}:
            self._tasks.run(lambda _task: manager.restart(name), lambda *_: self._fill(), key=f"mcp-restart-{name}")


def _brush(color: str) -> Any:
    from PySide6.QtGui import QBrush, QColor

    return QBrush(QColor(color))
