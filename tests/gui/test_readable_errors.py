"""The window shows errors a user can read (issue 13): a web page where the API should be, a proxy's error page,
a server that trickles its headers, a locked keyring — each as its own card with what happened and what to check,
never the page's HTML and never "no API key is set" for a key that is saved but locked away."""

from __future__ import annotations

import pytest

from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from tests.helpers.gui import wait_idle
from tests.helpers.keyrings import LockedKeyring
from tests.servers.misbehaving import PageServer, TrickleServer

PAGE = b"<!DOCTYPE html><html><head><title>Welcome to nginx!</title></head><body><h1>Welcome</h1></body></html>"


@pytest.fixture
def servers():
    started: list = []
    yield started
    for server in started:
        server.close()


def only_card(qtbot, w):
    wait_idle(qtbot, w, 20_000)
    cards = w.chat.error_cards()
    assert len(cards) == 1, [c.title.text() for c in cards]
    return cards[0]


def test_a_web_page_at_the_base_url_is_not_an_openai_api_card(qtbot, make_window, servers):
    server = PageServer(200, PAGE, "text/html")
    servers.append(server)
    base = f"http://127.0.0.1:{server.port}"
    w = make_window(Settings(backend="openai", openai_base_url=base, openai_model="m", tools_enabled=False))
    w.send("hello")
    card = only_card(qtbot, w)
    assert card.title.text() == "Not an OpenAI-compatible API"
    text = card.text.text()
    assert "does not look like an OpenAI-compatible API" in text and f"{base}/chat/completions" in text
    assert f"try {base}/v1" in text and "Settings → OpenAI-compatible" in text
    assert "Welcome" not in text and "&lt;" not in text and "Empty answer" not in card.title.text()
    assert {"Open settings", "Retry"} <= set(card.buttons)
    card.grab().save("/tmp/card-not-an-api.png")


def test_a_proxy_502_page_for_ollama_says_what_to_check(qtbot, make_window, servers):
    server = PageServer(502, b"<html><body><center><h1>502 Bad Gateway</h1></center><hr>nginx</body></html>",
                        "text/html")  # fmt: skip
    servers.append(server)
    host = f"http://127.0.0.1:{server.port}"
    w = make_window(Settings(ollama_host=host, tools_enabled=False))
    w.send("hello")
    card = only_card(qtbot, w)
    assert card.title.text() == "Web page instead of an answer (HTTP 502)"
    text = card.text.text()
    assert f"{host}/api/chat answered HTTP 502 with a web page" in text
    assert "proxy or gateway" in text and "Settings → Ollama" in text
    assert "nginx" not in text and "Bad Gateway" not in text
    assert "Retry" in card.buttons
    card.grab().save("/tmp/card-web-page.png")


def test_a_trickling_server_is_not_responding_not_unreachable(qtbot, make_window, servers):
    server = TrickleServer()
    servers.append(server)
    w = make_window(Settings(ollama_host=f"http://127.0.0.1:{server.port}", ollama_timeout_s=1,
                             tools_enabled=False))  # fmt: skip
    w.send("hello")
    card = only_card(qtbot, w)
    assert card.title.text() == "No answer from the server"
    assert "did not answer within 1 s" in card.text.text() and "Can't reach" not in card.text.text()
    assert server.sent >= 3


def test_a_locked_keyring_says_unlock_it_not_no_api_key(qtbot, make_window, clean_keyring_state):
    store = SecretStore(keyring_backend=LockedKeyring())
    w = make_window(Settings(backend="openai", openai_base_url="https://api.example.invalid/v1", openai_model="m",
                             tools_enabled=False), secrets=store)  # fmt: skip
    w.send("hello")
    card = only_card(qtbot, w)
    assert card.title.text() == "Keyring locked"
    text = card.text.text()
    assert "keyring is locked — unlock it" in text and "No API key is set" not in text
    assert "Retry" in card.buttons
    assert "Keyring locked" in w.server_label.text()
    card.grab().save("/tmp/card-keyring-locked.png")


def test_a_local_server_asking_for_the_locked_away_key_says_unlock_it(qtbot, make_window, openai_server,
                                                                      clean_keyring_state):  # fmt: skip
    """A loopback server is first sent the placeholder key (local servers rarely need one); when it answers 401,
    the locked keyring is the reason, not a missing key."""
    openai_server.required_keys = {"sk-saved-but-locked"}
    store = SecretStore(keyring_backend=LockedKeyring())
    w = make_window(Settings(backend="openai", openai_base_url=openai_server.url, openai_model="m",
                             tools_enabled=False), secrets=store)  # fmt: skip
    w.send("hello")
    card = only_card(qtbot, w)
    assert card.title.text() == "Keyring locked" and "unlock it" in card.text.text()
    assert "No API key" not in card.text.text()


# ---- base URLs as people paste them (Settings dialog) -----------------------------------------------------------


@pytest.fixture
def dialog(qtbot, clean_keyring_state):
    from desktop_agent.ui.settings.dialog import SettingsDialog
    from tests.helpers.keyrings import DictKeyring

    made = SettingsDialog(Settings(), SecretStore(keyring_backend=DictKeyring()), auto_refresh=False)
    qtbot.addWidget(made)
    made.show()
    qtbot.waitUntil(lambda: made.openai_page.keys.loaded, timeout=10_000)
    yield made
    made.shutdown()
    made.close()


def test_a_pasted_endpoint_is_saved_as_its_base_url_and_the_dialog_says_so(qtbot, dialog):
    page = dialog.openai_page
    dialog.openai_radio.setChecked(True)
    page.base_url.setText("  http://localhost:8080/v1/chat/completions  ")
    assert page.base_url_used.isVisible() and page.base_url_used.text().endswith("Using http://localhost:8080/v1")
    assert not page.base_url_error.isVisible()
    page.base_url.setText("http://localhost:8080/v1")
    assert not page.base_url_used.isVisible()  # nothing to fix, nothing said
    page.base_url.setText("localhost:1234/v1/")
    assert page.base_url_used.text().endswith("Using http://localhost:1234/v1")
    dialog.grab().save("/tmp/settings-using-url.png")
    with qtbot.waitSignal(dialog.settings_saved, timeout=10_000) as saved:
        dialog.save_button.click()
    assert saved.args[0].openai.base_url == "http://localhost:1234/v1"
    assert Settings.load()[0].openai.base_url == "http://localhost:1234/v1"


def test_an_ollama_host_form_is_used_as_ollama_reads_it(qtbot, dialog):
    page = dialog.ollama_page
    page.host.setText("gpu-box:11434")
    assert page.host_used.text().endswith("Using http://gpu-box:11434")
    page.host.setText("http://localhost:11434/api/chat")
    assert page.host_used.text().endswith("Using http://localhost:11434")
    with qtbot.waitSignal(dialog.settings_saved, timeout=10_000) as saved:
        dialog.save_button.click()
    assert saved.args[0].ollama.host == "http://localhost:11434"


def test_a_pasted_preset_endpoint_is_recognised_as_the_preset(dialog):
    page = dialog.openai_page
    page.base_url.setText("http://localhost:1234/v1/chat/completions")
    assert page.preset.currentText() == "LM Studio"
