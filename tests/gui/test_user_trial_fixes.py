"""Regressions found by trying the window as a new user under Xvfb (issues 3, 4, 6 "Done when").

Each test names what a user met. Real widgets offscreen, real backends against the local protocol
servers, real store; keyrings are in-test (``DictKeyring``) so no Secret Service on the machine is
touched.
"""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from desktop_agent.core.secrets import SecretStore, normalize_base_url
from desktop_agent.core.settings import Settings
from desktop_agent.ui.chat.parts import TextPart
from desktop_agent.ui.chat.turn import AssistantTurn
from desktop_agent.ui.settings.dialog import SettingsDialog
from tests.gui.conftest import last_turn_text, text_lines, wait_idle
from tests.keyrings import DictKeyring
from tests.servers.ollama import HttpError
from tests.servers.openai import OpenAIServer

KEY = "sk-trial-0123456789abcdefXYZ"


pytestmark = pytest.mark.usefixtures("clean_keyring_state")


class GatedKeyring(DictKeyring):
    """Reads wait until ``gate`` is set: a keyring that is slow to answer (an unlock prompt)."""

    def __init__(self):
        super().__init__()
        self.gate = threading.Event()
        self.gate.set()

    def get_password(self, service, username):
        self.gate.wait(10)
        return super().get_password(service, username)


# ---- history panel inside the window ------------------------------------------------------------


def test_escape_in_the_history_search_clears_it_inside_the_window(qtbot, make_window, ollama_settings):
    """Esc in the search box cleared it when the panel stood alone, but inside the window the
    window's Esc (= Stop) shortcut swallowed the key: the search stayed."""
    w = make_window(ollama_settings)
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=5000)
    panel = w.history_panel
    panel.search_box.setFocus()
    qtbot.keyClicks(panel.search_box, "hello")
    assert panel.search_box.text() == "hello"
    qtbot.keyClick(panel.search_box, Qt.Key.Key_Escape)
    assert panel.search_box.text() == ""


def test_history_chat_button_leaves_room_for_its_menu_arrow(qtbot, make_window, ollama_settings):
    """The footer "Chat" button's menu arrow was drawn over the last letter ("Chat⌄" looked clipped)."""
    w = make_window(ollama_settings)
    qtbot.waitUntil(lambda: w.history_panel is not None, timeout=5000)
    button: QToolButton = w.history_panel.chat_button
    text_width = button.fontMetrics().horizontalAdvance(button.text())
    # the label, plus the arrow (≥ 8 px) and a gap, fit in the button
    assert button.sizeHint().width() >= text_width + 8 + 14
    assert button.width() >= button.sizeHint().width()


# ---- status bar and model names -----------------------------------------------------------------


def test_ollama_latest_name_is_the_one_name_shown_everywhere(qtbot, make_window, ollama_server):
    """Settings say "llama3.2", Ollama lists "llama3.2:latest": the picker showed one name, the status
    bar and the answers the other."""
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama3.2"), check_server=True)
    qtbot.waitUntil(lambda: w.model_combo.currentText() == "llama3.2:latest", timeout=5000)
    assert w.backend_label.text() == "Ollama · llama3.2:latest"
    w.send("hello")
    wait_idle(qtbot, w)
    turn = w.chat.blocks[-1]
    assert isinstance(turn, AssistantTurn) and "llama3.2:latest" in turn.meta.text()
    assert ollama_server.chat_requests[-1]["model"] == "llama3.2:latest"
    assert w.model_combo.findText("llama3.2") < 0  # not listed twice under two names


def test_the_streaming_answer_names_its_model_from_the_start(qtbot, make_window, ollama_server, ollama_settings):
    """The header of a streaming answer showed only the time, the model name appeared at the end."""
    ollama_server.chunk_delay_s = 0.05
    ollama_server.script(text_lines([f"w{i} " for i in range(30)]))
    w = make_window(ollama_settings)
    w.send("go")
    qtbot.waitUntil(lambda: w.chat.live is not None and any(
        isinstance(p, TextPart) and p.buffer for p in w.chat.live.parts), timeout=5000)
    assert "llama3.2" in w.chat.live.meta.text()
    w.stop()
    wait_idle(qtbot, w)


def _openai_settings(server: OpenAIServer) -> Settings:
    return Settings(backend="openai", openai_base_url=server.url, openai_model="local-model",
                    openai_retries_per_key=0)


def test_status_bar_says_the_key_is_rejected_not_that_the_server_is_down(qtbot, make_window):
    """Shared case 21-openai-api-key-missing-or-401.json in the status bar: a 401 (or no key) said
    "Server not reachable" while the server answered; the label now names the key problem."""
    server = OpenAIServer(required_keys=["sk-right"]).start()
    try:
        store = SecretStore(keyring_backend=DictKeyring())
        store.set_api_keys(["sk-wrong"], server.url)
        w = make_window(_openai_settings(server), secrets=store, check_server=True)
        qtbot.waitUntil(lambda: "API key rejected" in w.server_label.text(), timeout=5000)
        assert "not reachable" not in w.server_label.text()
        assert server.url in w.server_label.toolTip()

        store.set_api_keys([], server.url)
        w.refresh_models()
        qtbot.waitUntil(lambda: "No API key" in w.server_label.text(), timeout=5000)

        store.set_api_keys(["sk-right"], server.url)
        w.refresh_models()
        qtbot.waitUntil(lambda: "online" in w.server_label.text(), timeout=5000)
    finally:
        server.stop()


def test_a_turn_failing_on_the_key_updates_the_status_bar(qtbot, make_window):
    server = OpenAIServer(required_keys=["sk-right"]).start()
    try:
        store = SecretStore(keyring_backend=DictKeyring())
        store.set_api_keys(["sk-wrong"], server.url)
        w = make_window(_openai_settings(server), secrets=store)
        w.send("hello")
        wait_idle(qtbot, w)
        assert w.chat.error_cards() and "rejected" in w.chat.error_cards()[0].title.text()
        assert "API key rejected" in w.server_label.text()
    finally:
        server.stop()


def test_when_the_server_answers_again_its_models_are_listed(qtbot, make_window, ollama_server):
    """After a failed start (status: not reachable), a successful turn set "Server online" but left
    the model picker with only the configured name and no server version."""
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="qwen3:8b"))
    w.server_label.show_problem("Server not reachable", "down earlier")
    w.send("hello")
    wait_idle(qtbot, w)
    qtbot.waitUntil(lambda: w.model_combo.findText("llama3.2:latest") >= 0, timeout=5000)
    qtbot.waitUntil(lambda: "0.12.6" in w.server_label.text(), timeout=5000)


# ---- error cards --------------------------------------------------------------------------------


def test_an_older_error_card_no_longer_offers_retry_once_the_chat_moved_on(qtbot, make_window, ollama_server):
    """An error, then a new message: the old card kept a live Retry / Pull / Use that acted on the
    latest message instead of the one it was shown for."""
    ollama_server.strict_models = True
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama2"))
    w.send("first")
    wait_idle(qtbot, w)
    old = w.chat.error_cards()[0]
    assert old.buttons["Pull llama2"].isEnabled()
    w.controller.update_settings({"ollama.model": "qwen3:8b"})
    w.send("second")
    wait_idle(qtbot, w)
    assert last_turn_text(w) == "You said: second"
    assert old in w.chat.error_cards()  # the error stays visible: nothing is lost
    assert not any(b.isEnabled() for b in old.buttons.values())


def test_retry_still_replaces_the_latest_error(qtbot, make_window, ollama_server, ollama_settings):
    ollama_server.script(HttpError(500, {"error": "boom"}))
    w = make_window(ollama_settings)
    w.send("hello")
    wait_idle(qtbot, w)
    card = w.chat.error_cards()[-1]
    assert card.buttons["Retry"].isEnabled()
    card.buttons["Retry"].click()
    wait_idle(qtbot, w)
    assert not w.chat.error_cards() and last_turn_text(w) == "You said: hello"


# ---- a small window -----------------------------------------------------------------------------


def test_a_small_window_keeps_the_chat_usable(qtbot, make_window, ollama_settings):
    """Resized to 800×600 the docks kept their width and the chat shrank to ≈230 px, and the toolbar
    hid Tool activity and Settings behind its overflow arrow."""
    w = make_window(ollama_settings, size=(1280, 800))
    qtbot.waitUntil(lambda: w.history_dock is not None and w.history_dock.isVisible(), timeout=5000)
    w.resize(800, 600)
    qtbot.waitUntil(lambda: w.chat.width() >= 340, timeout=5000)
    assert w.tool_dock.isVisible() and w.history_dock.isVisible()
    for action in (w.settings_action, w.toggle_tools_action, w.new_chat_action):
        button = w.toolbar.widgetForAction(action)
        assert button is not None and button.isVisible()
        assert button.geometry().right() <= w.toolbar.width()
    # wide again: the buttons get their text back
    w.resize(1280, 800)
    qtbot.waitUntil(lambda: w.toolbar.widgetForAction(w.settings_action).toolButtonStyle()
                    == Qt.ToolButtonStyle.ToolButtonTextBesideIcon, timeout=5000)


# ---- settings dialog ----------------------------------------------------------------------------


@pytest.fixture
def dialogs(qtbot):
    made: list[SettingsDialog] = []

    def make(settings: Settings, store: SecretStore) -> SettingsDialog:
        dialog = SettingsDialog(settings, store, auto_refresh=False)
        qtbot.addWidget(dialog)
        made.append(dialog)
        dialog.show()
        qtbot.waitUntil(lambda: dialog.openai_page.keys.loaded, timeout=10_000)
        return dialog

    yield make
    for dialog in made:
        dialog.shutdown()
        dialog.close()


def test_a_key_typed_while_the_keys_list_loads_is_kept(qtbot, dialogs):
    """Edit the base URL, then type the key: while the new URL's keys were read, the key field was
    disabled — the focus jumped to Timeout and the typed key was lost."""
    backend = GatedKeyring()
    dialog = dialogs(Settings(backend="openai", openai_base_url="https://a.example/v1"),
                     SecretStore(keyring_backend=backend))
    dialog.tabs.setCurrentIndex(1)
    backend.gate.clear()  # the keyring is slow to answer from now on
    dialog.openai_page.base_url.selectAll()
    qtbot.keyClicks(dialog.openai_page.base_url, "https://b.example/v1")
    qtbot.waitUntil(lambda: not dialog.openai_page.keys.loaded, timeout=5000)  # reading b's keys
    assert dialog.openai_page.keys.new_key.isEnabled()
    dialog.openai_page.keys.new_key.setFocus()
    qtbot.keyClicks(dialog.openai_page.keys.new_key, KEY)
    assert dialog.openai_page.keys.new_key.hasFocus() and dialog.openai_page.keys.new_key.text() == KEY
    qtbot.keyClick(dialog.openai_page.keys.new_key, Qt.Key.Key_Return)
    backend.gate.set()
    qtbot.waitUntil(lambda: dialog.openai_page.keys.api_keys() == [KEY], timeout=5000)
    assert dialog.openai_page.keys._keys_by_url[normalize_base_url("https://b.example/v1")] == [KEY]
    assert not dialog.openai_page.keys._keys_by_url.get(normalize_base_url("https://a.example/v1"))


def test_a_key_added_right_after_editing_the_url_belongs_to_the_new_url(qtbot, dialogs):
    """Enter in the key field before the (debounced) switch to the new URL's keys: the key went to the
    previous provider."""
    dialog = dialogs(Settings(backend="openai", openai_base_url="https://a.example/v1"),
                     SecretStore(keyring_backend=DictKeyring()))
    dialog.openai_page.base_url.selectAll()
    qtbot.keyClicks(dialog.openai_page.base_url, "https://b.example/v1")
    assert dialog.openai_page.keys._timer.isActive()
    dialog.openai_page.keys.new_key.setText(KEY)
    qtbot.keyClick(dialog.openai_page.keys.new_key, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: dialog.openai_page.keys.api_keys() == [KEY], timeout=5000)
    assert dialog.openai_page.keys._keys_url == normalize_base_url("https://b.example/v1")
    assert not dialog.openai_page.keys._keys_by_url.get(normalize_base_url("https://a.example/v1"))


def test_settings_show_the_ollama_host_in_use_when_OLLAMA_HOST_is_set(qtbot, make_window, ollama_server, monkeypatch):
    """Started with OLLAMA_HOST, chats worked but Settings showed the saved localhost:11434 and
    reported "Can't reach Ollama" as soon as it opened."""
    monkeypatch.setenv("OLLAMA_HOST", ollama_server.url)
    saved = Settings(ollama_host="http://localhost:11434")
    w = make_window(saved.updated({"ollama.host": ollama_server.url}), saved=saved)
    w.open_settings()
    dialog = w.settings_dialog
    assert dialog is not None
    try:
        assert dialog.ollama_page.host.text() == ollama_server.url
        assert dialog.ollama_page.host_note.isVisible() and "OLLAMA_HOST" in dialog.ollama_page.host_note.text()
    finally:
        dialog.shutdown()
        dialog.close()


# ---- dark palette -------------------------------------------------------------------------------


def _luminance(c) -> float:
    def ch(v: int) -> float:
        v = v / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * ch(c.red()) + 0.7152 * ch(c.green()) + 0.0722 * ch(c.blue())


def _indicator_contrast(qtbot, widget_cls, style) -> float:
    """The best contrast between an unchecked indicator's pixels and the window, on the dark palette."""
    from PySide6.QtGui import QColor
    from PySide6.QtWidgets import QStyle, QStyleOptionButton

    from desktop_agent.ui import theme

    w = widget_cls("Option")
    qtbot.addWidget(w)
    w.setStyle(style)
    w.setPalette(theme.dark_palette())
    w.setAutoFillBackground(True)
    w.resize(160, 30)
    image = w.grab().toImage()
    opt = QStyleOptionButton()
    opt.initFrom(w)
    element = (QStyle.SubElement.SE_RadioButtonIndicator if "Radio" in widget_cls.__name__
               else QStyle.SubElement.SE_CheckBoxIndicator)
    rect = style.subElementRect(element, opt, w)
    window = _luminance(theme.dark_palette().color(theme.QPalette.ColorRole.Window))
    best = 1.0
    for x in range(rect.left(), rect.right() + 1):
        for y in range(rect.top(), rect.bottom() + 1):
            lum = _luminance(QColor(image.pixel(x, y)))
            hi, lo = max(lum, window), min(lum, window)
            best = max(best, (hi + 0.05) / (lo + 0.05))
    return best


def test_radio_buttons_and_check_boxes_are_visible_on_the_dark_palette(qtbot):
    """In the dark theme the Settings "Provider" radio buttons were near-black rings on a near-black
    window (Fusion outlines indicators with Window.darker()): an unchecked option could not be seen."""
    from PySide6.QtWidgets import QCheckBox, QRadioButton

    from desktop_agent.ui.contrast_style import ContrastStyle

    style = ContrastStyle("Fusion")
    for cls in (QRadioButton, QCheckBox):
        assert _indicator_contrast(qtbot, cls, style) >= 3.0, cls.__name__


def test_after_pull_the_retried_turn_uses_the_listed_model_name(qtbot, make_window, ollama_server):
    """Pull from the error card, then the automatic retry: the answer said "llama2" while the picker
    and the status bar said "llama2:latest" (the retry started before the models were listed)."""
    ollama_server.strict_models = True
    w = make_window(Settings(ollama_host=ollama_server.url, ollama_model="llama2"))
    w.send("hello")
    wait_idle(qtbot, w)
    w.chat.error_cards()[0].buttons["Pull llama2"].click()
    qtbot.waitUntil(lambda: not w.chat.error_cards() and not w.busy and bool(last_turn_text(w)), timeout=10_000)
    assert ollama_server.chat_requests[-1]["model"] == "llama2:latest"
    assert w.model_combo.currentText() == "llama2:latest"
    assert "llama2:latest" in w.backend_label.text() and "llama2:latest" in w.chat.blocks[-1].meta.text()


def test_refresh_models_action_still_works(qtbot, make_window, ollama_settings):
    w = make_window(ollama_settings)
    w.refresh_action.trigger()  # triggered(bool) must not be taken for the ``then`` callback
    qtbot.waitUntil(lambda: w.model_combo.findText("qwen3:8b") >= 0, timeout=5000)
