"""Settings, opened from the window: the dialog starts from the settings file as it is now (a terminal may have
changed it), is window-modal and non-blocking, one at a time; what it saves applies from the next message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt

from desktop_agent.ui.i18n import translate

if TYPE_CHECKING:
    from desktop_agent.ui.main_window import MainWindow


def open_settings(window: MainWindow, tab: str = "") -> None:
    """Open ``window``'s Settings at the page titled ``tab`` (if given), or bring the open one to the front."""
    from desktop_agent.core.mcp.bundle import prune
    from desktop_agent.ui.mcp_bundle import install_bundle
    from desktop_agent.ui.settings.dialog import SettingsDialog

    if window.settings_dialog is not None:
        window.settings_dialog.raise_()
        window.settings_dialog.activateWindow()
        window.settings_dialog.show_page(tab)
        return
    ctl = window.controller
    assert ctl is not None, "Settings open once the window's services are built"
    ctl.check_outside_changes()  # the dialog starts from the file as it is now (a terminal's `mcp add`)
    saved_host = (ctl.saved or ctl.settings).ollama.host
    services = ctl.services
    dlg = SettingsDialog(ctl.settings_for_dialog(), ctl.secrets, window, assembly=ctl.assembly, pull=ctl.pull,
                         file_host=saved_host if saved_host != ctl.settings.ollama.host else None,
                         env=services.env, saver=lambda before, after: services.save_settings(before, after).saved)
    dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def saved(settings) -> None:
        window.apply_settings(settings)
        ctl.tasks.run(lambda _task: prune(settings), key="mcp-bundle-prune")  # a removed bundle's files
        window.statusBar().showMessage(translate("MainWindow", "Settings saved; they apply from the next message."),
                                       5000)

    dlg.settings_saved.connect(saved)
    dlg.tools_page.learned_changed.connect(window.chat_options.refresh)  # a Forget applies at once
    page = dlg.mcp_page
    page.install_bundle_requested.connect(lambda: install_bundle(window, parent=dlg, on_installed=page.add_installed))
    dlg.destroyed.connect(lambda *_: setattr(window, "settings_dialog", None))
    dlg.finished.connect(lambda _result: window.activateWindow())  # the keyboard returns where it was
    window.settings_dialog = dlg
    dlg.show_page(tab)
    dlg.open()
