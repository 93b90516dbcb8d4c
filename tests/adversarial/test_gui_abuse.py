"""Window parts under abuse: odd API keys in the settings dialog, hostile markdown, a huge tool result
in the history search. Real widgets offscreen; dialogs are held and closed by the fixture
(shared case 37-gui-qthread-destroyed-on-exit.json)."""

from __future__ import annotations

import pytest

from desktop_agent.core.messages import Conversation, Message
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from desktop_agent.core.store import ConversationStore
from desktop_agent.ui.settings.dialog import SettingsDialog
from tests.helpers.keyrings import DictKeyring

WAIT_MS = 10_000


pytestmark = pytest.mark.usefixtures("clean_keyring_state")


@pytest.fixture
def dialog(qtbot):
    store = SecretStore("http://127.0.0.1:9/v1", keyring_backend=DictKeyring())
    d = SettingsDialog(Settings(backend="openai", openai_base_url="http://127.0.0.1:9/v1"), store, auto_refresh=False)
    qtbot.addWidget(d)
    d.show()
    qtbot.waitUntil(lambda: d.openai_page.keys.loaded, timeout=WAIT_MS)
    yield d
    d.shutdown()
    d.close()


@pytest.mark.parametrize("bad", ["sk-first-0123456789\nsk-second-0123456789", "sk-with space-0123456789",
                                 "sk-caf\u00e9-0123456789", "sk-\u200bhidden-0123456789"])
def test_dialog_refuses_a_key_no_http_header_can_carry(dialog, bad):
    """A pasted key with a line break / space / non-ASCII was stored and then failed every request with
    a misleading "not valid JSON" or an error text holding the (escaped) key. Set with setPlainText-like
    setText: never keyClicks non-ASCII."""
    dialog.openai_page.keys.new_key.setText(bad)
    dialog.openai_page.keys.add_key()
    assert dialog.openai_page.keys.api_keys() == []
    shown = "" if dialog.openai_page.status.isHidden() else dialog.openai_page.status.text()
    assert "API key contains" in shown and "0123456789" not in shown


def test_dialog_accepts_a_normal_key_with_padding(dialog):
    dialog.openai_page.keys.new_key.setText("  sk-normal-0123456789abc  ")
    dialog.openai_page.keys.add_key()
    assert dialog.openai_page.keys.api_keys() == ["sk-normal-0123456789abc"]


def test_script_and_raw_html_in_an_answer_stay_text(qtbot):
    from PySide6.QtWidgets import QTextBrowser

    from desktop_agent.ui import markdown

    text = (
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n<style>body{display:none}</style>\n\n"
        "[x](javascript:alert(1))"
    )
    out = markdown.render(text)
    assert "<script" not in out.html and "<style" not in out.html and "<img" not in out.html
    assert 'href="javascript:' not in out.html
    b = QTextBrowser()
    qtbot.addWidget(b)
    b.setHtml(out.html)
    assert "<script>alert(1)</script>" in b.toPlainText()


def test_history_search_with_a_huge_tool_result_does_not_freeze(qtbot, tmp_path):
    """FTS5 snippet() on a 200 kB repetitive tool result took minutes (when the panel searched on the GUI
    thread, the window froze). The search must answer and show one result, the window staying responsive."""
    from desktop_agent.ui.history.panel import HistoryPanel

    store = ConversationStore(tmp_path / "c.sqlite3")
    conv = Conversation()
    store.add_message(conv, Message(role="user", content="dump the log"))
    store.add_message(conv, Message(role="tool", content="-=" * 100_000, tool_call_id="c", tool_name="log"))
    panel = HistoryPanel(store)
    qtbot.addWidget(panel)
    panel.show()
    panel.search_box.setText("-=-=")
    panel._run_search()
    qtbot.waitUntil(lambda: panel.search_model.rowCount() == 1, timeout=5000)
    panel.close()
    store.close()
