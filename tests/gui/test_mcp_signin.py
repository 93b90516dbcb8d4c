"""Settings → MCP, a remote server that needs a sign-in: the page shows "needs a sign-in", Sign in opens the browser
(driven by the test) and waits for it, the server is then used with the tokens from the REAL keyring, and Sign out
revokes them — against the protected SDK server with its own authorization server (tests/helpers/oauth.py).
Screenshots of the three states are saved (SCREENSHOT_DIR, default /tmp).

Run with ``bash scripts/with-keyring.sh python -m pytest tests/gui/test_mcp_signin.py``."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.ui.settings.dialog import MCP_TAB, SettingsDialog
from desktop_agent.ui.settings.mcp_signin import SIGNED_IN, SIGNED_OUT, WAITING
from tests.e2e.test_keyring_real import real_keyring  # noqa: F401 (fixture)
from tests.helpers.oauth import Browser, protected, server_state  # noqa: F401 (fixture)

pytestmark = pytest.mark.keyring
WAIT_MS = 60_000


def _shot(dialog: SettingsDialog, name: str) -> Path:
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()  # the layout requests of the text just shown, as the event loop would
    path = Path(os.environ.get("SCREENSHOT_DIR", "/tmp")) / name
    dialog.grab().save(str(path))
    return path


def test_sign_in_and_out_from_settings(qtbot, real_keyring, protected, tmp_path):  # noqa: F811
    server = McpServerSettings(name="protected", url=f"{protected}/mcp")
    settings = Settings().updated({"mcp.servers": [server.model_dump()]})
    secrets = SecretStore()
    assembly = Assembly(secrets=secrets)
    dialog = SettingsDialog(settings, secrets, assembly=assembly, auto_refresh=False,
                            settings_path=tmp_path / "settings.json")
    qtbot.addWidget(dialog)
    dialog.resize(820, 680)
    dialog.show()
    dialog.tabs.setCurrentIndex(MCP_TAB)
    page = dialog.mcp_page
    box = page.sign_in_box
    try:
        threading.Thread(target=assembly.mcp, args=(settings,), daemon=True).start()
        qtbot.waitUntil(lambda: "needs a sign-in" in page.status_text("protected"), timeout=WAIT_MS)
        page.select("protected")
        qtbot.waitUntil(lambda: box.isVisible() and box.state == SIGNED_OUT, timeout=WAIT_MS)
        assert "Not signed in" in box.status.text() and box.sign_in_button.isVisible()
        qtbot.waitUntil(lambda: "mcp login protected" in page.status_line.text(), timeout=WAIT_MS)
        _shot(dialog, "mcp-signin-signed-out.png")

        # Sign in: the browser is "opened" (the test holds the page until it has looked at the waiting state)
        browser = Browser()
        box.open_url = browser.opened.append
        box.sign_in_button.click()
        qtbot.waitUntil(lambda: box.state == WAITING and len(browser.opened) == 1, timeout=WAIT_MS)
        assert box.cancel_button.isVisible() and not box.sign_in_button.isVisible()
        assert "Waiting for the browser" in box.status.text()
        _shot(dialog, "mcp-signin-waiting.png")
        browser.visit(browser.opened[0])  # the user signs in there and allows access
        qtbot.waitUntil(lambda: box.state == SIGNED_IN, timeout=WAIT_MS)
        assert f"Signed in at {protected}" in box.status.text() and box.sign_out_button.isVisible()
        assert "Signed in to protected; tools it offers: 1." in box.message.text()
        # the running server reconnects with the sign-in and its tool is there
        qtbot.waitUntil(lambda: page.status_text("protected") == "ready (1 tool)", timeout=WAIT_MS)
        page.select("protected")
        assert box.state == SIGNED_IN and box.sign_out_button.isVisible()
        _shot(dialog, "mcp-signin.png")

        # Sign out: revoked at the server, forgotten; the server needs a sign-in again
        box.sign_out_button.click()
        qtbot.waitUntil(lambda: box.state == SIGNED_OUT, timeout=WAIT_MS)
        assert "revoked its tokens" in box.message.text()
        assert server_state(protected)["live_access_tokens"] == 0
        qtbot.waitUntil(lambda: "needs a sign-in" in page.status_text("protected"), timeout=WAIT_MS)
    finally:
        dialog.shutdown()
        dialog.close()
        assembly.close()


def test_cancel_while_waiting_for_the_browser_saves_nothing(qtbot, real_keyring, protected, tmp_path):  # noqa: F811
    server = McpServerSettings(name="protected", url=f"{protected}/mcp", oauth_client_id="")
    settings = Settings().updated({"mcp.servers": [server.model_dump()]})
    secrets = SecretStore()
    dialog = SettingsDialog(settings, secrets, assembly=None, auto_refresh=False,
                            settings_path=tmp_path / "settings.json")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.tabs.setCurrentIndex(MCP_TAB)
    page, box = dialog.mcp_page, dialog.mcp_page.sign_in_box
    try:
        page.select("protected")
        qtbot.waitUntil(lambda: box.state == SIGNED_OUT, timeout=WAIT_MS)
        opened: list[str] = []
        box.open_url = opened.append
        box.sign_in_button.click()
        qtbot.waitUntil(lambda: box.state == WAITING and len(opened) == 1, timeout=WAIT_MS)
        box.cancel_button.click()
        qtbot.waitUntil(lambda: box.state == SIGNED_OUT and box.message.isVisible(), timeout=WAIT_MS)
        assert "cancelled" in box.message.text()
    finally:
        dialog.shutdown()
        dialog.close()
