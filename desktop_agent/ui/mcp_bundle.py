"""Installing an MCP bundle from the window: File → Install MCP bundle…, Settings → MCP servers → Install
bundle…, or a ``.mcpb`` file dropped onto the window. The bundle is opened and checked in the background, shown
in :class:`~desktop_agent.ui.mcp_bundle_dialog.BundleDialog`, installed in the background
(:func:`desktop_agent.core.mcp.bundle.install`: the settings file edited under its lock, secrets to the keyring),
and its server started at once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox, QWidget

from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.core.settings import McpServerSettings
    from desktop_agent.ui.main_window import MainWindow
    from desktop_agent.ui.mcp_bundle_dialog import BundleDialog

SUFFIXES = (".mcpb", ".dxt")


def install_bundle(window: MainWindow, path: str | None = None, parent: QWidget | None = None,
                   on_installed: Callable[[McpServerSettings], None] | None = None) -> None:
    """Ask for a bundle (``path``: given), show it, install it when the user says so; ``on_installed(server)``
    after (the Settings page adds it to its list)."""
    parent = parent or window
    if path is None:
        path, _filter = QFileDialog.getOpenFileName(parent, translate("McpBundle", "Install MCP bundle"),
                                                    str(Path.home()), translate("McpBundle",
                                                    "MCP bundles (*.mcpb *.dxt);;All files (*)"))
        if not path:
            return
    ctl = window.controller
    if ctl is None:
        return
    from desktop_agent.core.mcp.bundle import BundleError, open_bundle, requirements

    def work(_task: Any) -> Any:
        bundle = open_bundle(path)
        return bundle, requirements(bundle.manifest)[1]

    def opened(result: Any, error: BaseException | None) -> None:
        if error is not None or result is None:
            why = str(error) if isinstance(error, BundleError) else (getattr(error, "strerror", None) or str(error))
            QMessageBox.warning(parent, translate("McpBundle", "Install MCP bundle"), translate(
                "McpBundle", "{name} cannot be installed: {why}. Nothing was installed.").format(
                    name=Path(path).name, why=why))
            return
        bundle, problems = result
        show_dialog(window, bundle, problems, parent=parent, on_installed=on_installed).open()

    window.statusBar().showMessage(translate("McpBundle", "Opening {name}…").format(name=Path(path).name), 3000)
    ctl.tasks.run(work, opened, key="mcp-bundle-open")


def show_dialog(window: MainWindow, bundle: Any, problems: list[str], parent: QWidget | None = None,
                on_installed: Callable[[McpServerSettings], None] | None = None) -> BundleDialog:
    """The dialog for ``bundle`` (not shown yet), wired to install it through ``window``'s services."""
    from desktop_agent.ui.mcp_bundle_dialog import BundleDialog

    ctl = window.controller
    assert ctl is not None
    current = next((s for s in ctl.settings.mcp.servers if s.name == bundle.server_name), None)
    from desktop_agent.core.mcp.bundle import previous_values

    dialog = BundleDialog(bundle, problems, parent or window, replaces=current, previous=previous_values(bundle))
    dialog.setObjectName("mcpBundleDialog")

    def install(values: dict[str, Any]) -> None:
        from desktop_agent.core.mcp.bundle import install as install_files

        saved: list[Any] = []

        def save(change: Any) -> Any:
            layered = ctl.services.edit_settings(change)
            saved.append(layered.saved)
            return layered

        def work(_task: Any) -> Any:
            return install_files(bundle, values, save, ctl.secrets, no_keyring="session")

        def done(notes: Any, error: BaseException | None) -> None:
            if error is not None or not saved:
                dialog.failed(str(error).rstrip(".") + ".")
                return
            settings = saved[-1]
            server = next(s for s in settings.mcp.servers if s.name == bundle.server_name)
            window.apply_settings(settings)  # its server starts now
            if on_installed is not None:
                on_installed(server)
            window.statusBar().showMessage(translate("McpBundle",
                    "Installed {title} {version}: its tools are offered once it has started.").format(
                        title=bundle.manifest.title, version=bundle.manifest.version), 8000)
            dialog.installed()

        ctl.tasks.run(work, done, key="mcp-bundle-install")

    dialog.install_requested.connect(install)
    return dialog


def _bundle_path(event: QDragEnterEvent | QDropEvent) -> str | None:
    mime = event.mimeData()
    if not mime.hasUrls():
        return None
    files = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()]
    return files[0] if len(files) == 1 and files[0].lower().endswith(SUFFIXES) else None


class _DropFilter(QObject):
    """A ``.mcpb`` dragged onto any part of the window is taken by the window (not pasted into the input)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self._window = window

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind not in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
            return False
        if not isinstance(obj, QWidget) or obj.window() is not self._window:
            return False
        assert isinstance(event, QDragEnterEvent | QDropEvent)
        path = _bundle_path(event)
        if path is None:
            return False
        event.acceptProposedAction()
        if kind == QEvent.Type.Drop:
            install_bundle(self._window, path)
        return True


def attach(window: MainWindow) -> QAction:
    """File → Install MCP bundle… and drag & drop of bundles onto ``window``; returns the menu action."""
    action = QAction(translate("McpBundle", "Install MCP &bundle…"), window)
    action.setToolTip(translate("McpBundle", "Install an MCP server packaged as a .mcpb bundle"))
    action.triggered.connect(lambda: install_bundle(window))
    file_menu = window.menuBar().actions()[0].menu() if window.menuBar().actions() else None
    if isinstance(file_menu, QMenu):
        file_menu.insertAction(window.settings_action, action)
    window.setAcceptDrops(True)
    app = QApplication.instance()
    if app is not None:
        app.installEventFilter(_DropFilter(window))
    return action
