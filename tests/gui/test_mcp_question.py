"""An MCP server's question in the window, with real servers and the window's own manager: the SDK server of
tests/mcp_servers/asking.py (MCP 2026-07-28: ``input_required``) and the npm reference server (2025-11-25:
``elicitation/create``). The form appears in the chat beside the call, is checked, filled and submitted, and the
tool's result (what the model reads) has the answer; Decline reaches the model; a URL-mode question opens the
browser only after the user agrees."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit

from desktop_agent.core.settings import McpServerSettings, Settings
from desktop_agent.ui.chat.question import QuestionCard
from tests.helpers.replies import tool_call_lines
from tests.mcp_servers.everything import everything_command, everything_http
from tests.mcp_servers.sdk import sdk_http

ROOT = Path(__file__).resolve().parents[2]
WAIT_MS = 90_000


def _asking() -> McpServerSettings:
    return McpServerSettings(name="asking", command=sys.executable, args=["-m", "tests.mcp_servers.asking"],
                             cwd=str(ROOT))


def _window(make_window, qtbot, ollama_server, server: McpServerSettings, **kwargs):
    settings = Settings(backend="ollama", ollama_host=ollama_server.url).updated(
        {"mcp.servers": [server.model_dump()], "tools.max_offered": 0})
    w = make_window(settings, **kwargs)
    qtbot.waitUntil(lambda: w.assembly.current_mcp() is not None, timeout=WAIT_MS)
    manager = w.assembly.current_mcp()
    qtbot.waitUntil(lambda: manager.states()[0].state == "ready", timeout=WAIT_MS)
    return w


def _ask(w, qtbot, ollama_server, tool: str, arguments: dict) -> QuestionCard:
    """Send a message whose answer calls ``tool``; allow the call; the question card that appears."""
    ollama_server.script(tool_call_lines(tool, arguments))
    w.send("please do it")
    qtbot.waitUntil(lambda: w.chat.live is not None and bool(w.chat.live.approvals), timeout=WAIT_MS)
    w.chat.live.approvals[0].allow.click()
    qtbot.waitUntil(lambda: w.chat.live is not None and bool(w.chat.live.questions), timeout=WAIT_MS)
    return w.chat.live.questions[0]


def _tool_result(w, qtbot, ollama_server) -> str:
    qtbot.waitUntil(lambda: not w.busy, timeout=WAIT_MS)
    return next(m["content"] for m in reversed(ollama_server.chat_requests[-1]["messages"]) if m["role"] == "tool")


def _inputs(card: QuestionCard) -> dict:
    return {i.field.name: i for i in card.inputs}


@pytest.fixture(params=["stdio", "http"])
def asking(request) -> Iterator[McpServerSettings]:
    """The SDK server, over stdio or Streamable HTTP (its own process on 127.0.0.1)."""
    if request.param == "stdio":
        yield _asking()
    else:
        with sdk_http("asking", "asking") as server:
            yield server


def test_a_new_version_question_is_a_form_that_is_checked_and_sent(make_window, qtbot, ollama_server, asking):
    w = _window(make_window, qtbot, ollama_server, asking)
    card = _ask(w, qtbot, ollama_server, "asking__book_table", {"restaurant": "Luigi"})
    assert card.message.text() == "Who is the table for?"
    inputs = _inputs(card)
    assert list(inputs) == ["name", "party", "seating", "birthday"]
    name, party, seating, birthday = (inputs[k].widget for k in ("name", "party", "seating", "birthday"))
    assert isinstance(name, QLineEdit) and name.accessibleName() == "Name (required)"
    assert isinstance(party, QLineEdit) and party.text() == "2"  # the default
    assert isinstance(seating, QComboBox) and seating.currentData() == "inside"
    assert isinstance(birthday, QCheckBox) and not birthday.isChecked()
    assert name.hasFocus() or w.isActiveWindow() is False  # the keyboard goes to the form (when the window has it)
    for button in (card.submit, card.decline, card.cancel):  # keyboard-reachable, named
        assert button.focusPolicy() & Qt.FocusPolicy.TabFocus and button.accessibleName()

    party.setText("40")
    card.submit.click()  # the name is missing, the party too big: nothing is sent
    assert not card.question.answered.is_set()
    assert inputs["name"].error.text() == "This field is required." and not inputs["name"].error.isHidden()
    assert inputs["party"].error.text() == "At most 12."

    name.setText("Ada")
    party.setText("4")
    seating.setCurrentIndex(seating.findData("terrace"))
    birthday.setChecked(True)
    qtbot.keyClick(name, Qt.Key.Key_Return)  # Enter submits
    assert _tool_result(w, qtbot, ollama_server) == "booked Luigi for Ada, 4 people, terrace, birthday"
    assert card.result.text() == "Answer sent" and not card.submit.isEnabled()


def test_decline_reaches_the_model(make_window, qtbot, ollama_server):
    w = _window(make_window, qtbot, ollama_server, _asking())
    card = _ask(w, qtbot, ollama_server, "asking__book_table", {"restaurant": "Luigi"})
    card.decline.click()
    said = _tool_result(w, qtbot, ollama_server)
    assert "the user declined to give the booking details" in said
    assert "The user declined the question of the MCP server asking" in said
    assert card.result.text() == "Declined"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_old_version_question_in_the_window(make_window, qtbot, ollama_server, transport):
    if transport == "http":
        with everything_http() as url:
            _old_version_form(make_window, qtbot, ollama_server, McpServerSettings(name="everything", url=url))
    else:
        _old_version_form(make_window, qtbot, ollama_server,
                          McpServerSettings(name="everything", command=everything_command(), args=["stdio"]))


def _old_version_form(make_window, qtbot, ollama_server, server: McpServerSettings) -> None:
    w = _window(make_window, qtbot, ollama_server, server)
    card = _ask(w, qtbot, ollama_server, "everything__trigger-elicitation-request", {})
    inputs = _inputs(card)
    assert inputs["name"].field.required and inputs["integer"].widget.text() == "42"
    assert [b.isChecked() for b in inputs["untitledMultipleSelectEnum"].boxes] == [True, False, False, False, False]
    inputs["name"].widget.setText("Ada")
    inputs["email"].widget.setText("not an address")
    card.submit.click()
    assert inputs["email"].error.text() == "Enter an email address."
    inputs["email"].widget.setText("ada@example.org")
    card.submit.click()
    said = _tool_result(w, qtbot, ollama_server)
    assert "- Name: Ada" in said and "- Email: ada@example.org" in said and "- Favorite Integer: 42" in said


@pytest.mark.parametrize("agree", [True, False])
def test_a_url_question_opens_the_browser_only_after_the_user_agrees(make_window, qtbot, ollama_server,
                                                                      monkeypatch, agree):
    opened = []
    monkeypatch.setattr("desktop_agent.ui.chat.question.QDesktopServices.openUrl",
                        lambda url: opened.append(url.toString()) or True)
    w = _window(make_window, qtbot, ollama_server, _asking())
    card = _ask(w, qtbot, ollama_server, "asking__open_page", {})
    assert "example.com" in card.title.text() and card.url is not None
    assert card.message.text() == "Confirm your e-mail address on the demo site"
    assert opened == []  # not before the user says so
    (card.submit if agree else card.decline).click()
    said = _tool_result(w, qtbot, ollama_server)
    assert said.startswith("url question: accept" if agree else "url question: decline")
    assert opened == (["https://example.com/confirm?code=1"] if agree else [])


def test_stop_while_the_form_waits_cancels_it(make_window, qtbot, ollama_server):
    w = _window(make_window, qtbot, ollama_server, _asking())
    card = _ask(w, qtbot, ollama_server, "asking__book_table", {"restaurant": "Luigi"})
    w.stop()
    qtbot.waitUntil(lambda: not w.busy, timeout=WAIT_MS)
    assert card.question.action == "cancel" and not card.submit.isEnabled()


def test_the_window_uses_a_server_of_each_version_and_settings_says_which(make_window, qtbot, ollama_server):
    everything = McpServerSettings(name="everything", command=everything_command(), args=["stdio"])
    settings = Settings(backend="ollama", ollama_host=ollama_server.url).updated(
        {"mcp.servers": [_asking().model_dump(), everything.model_dump()], "tools.max_offered": 0})
    w = make_window(settings)
    qtbot.waitUntil(lambda: w.assembly.current_mcp() is not None, timeout=WAIT_MS)
    manager = w.assembly.current_mcp()
    qtbot.waitUntil(lambda: [s.state for s in manager.states()] == ["ready", "ready"], timeout=WAIT_MS)
    w.open_settings(tab="MCP servers")
    page = w.settings_dialog.mcp_page
    for name, version in (("asking", "2026-07-28"), ("everything", "2025-11-25")):
        page.select(name)
        qtbot.waitUntil(lambda v=version: f"It speaks MCP {v}." in page.status_line.text(), timeout=WAIT_MS)
    w.settings_dialog.reject()
    qtbot.waitUntil(lambda: w.settings_dialog is None, timeout=5000)
    for tool, arguments, answer in (("everything__echo", {"message": "old"}, "Echo: old"),
                                    ("asking__grow", {}, "grown")):
        ollama_server.script(tool_call_lines(tool, arguments))
        w.send(f"call {tool}")

        def waiting() -> bool:
            return w.chat.live is not None and any(not c.request.answered for c in w.chat.live.approvals)

        qtbot.waitUntil(lambda: waiting() or not w.busy, timeout=WAIT_MS)  # (a read-only tool is not asked about)
        if waiting():
            w.chat.live.approvals[0].allow.click()
        assert _tool_result(w, qtbot, ollama_server) == answer


def test_a_sensitive_field_is_hidden_and_remembered_only_when_ticked(make_window, qtbot, ollama_server):
    from desktop_agent.core.secrets import SecretStore
    from tests.helpers.keyrings import DictKeyring

    keyring = DictKeyring()
    w = _window(make_window, qtbot, ollama_server, _asking(), secrets=SecretStore(keyring_backend=keyring))
    card = _ask(w, qtbot, ollama_server, "asking__sign_in", {"account": "ada"})
    password = _inputs(card)["password"]
    assert password.widget.echoMode() == QLineEdit.EchoMode.Password
    assert password.remember is not None and not password.remember.isChecked()
    assert password.remember.accessibleName() == "Remember Password in the keyring"
    password.widget.setText("hunter22")
    password.remember.setChecked(True)
    card.submit.click()
    assert _tool_result(w, qtbot, ollama_server) == "signed in ada with a password of 8 characters"
    assert "hunter22" in keyring.data.values()
    card = _ask(w, qtbot, ollama_server, "asking__sign_in", {"account": "ada"})  # next time: filled in
    password = _inputs(card)["password"]
    assert password.widget.text() == "hunter22" and password.remember.isChecked()
    card.submit.click()
    assert _tool_result(w, qtbot, ollama_server) == "signed in ada with a password of 8 characters"


def test_quick_ask_declines_a_question_and_says_so(make_window, qtbot, ollama_server):
    from desktop_agent.ui.quick_ask import quick_ask_of

    w = _window(make_window, qtbot, ollama_server, _asking())
    qa = quick_ask_of(w)
    qa.present()
    qtbot.waitExposed(qa)
    try:
        ollama_server.script(tool_call_lines("asking__book_table", {"restaurant": "Luigi"}))
        qa.ask("book a table")
        qtbot.waitUntil(qa.approval.isVisible, timeout=WAIT_MS)
        qa.allow_button.click()
        qtbot.waitUntil(lambda: "asked a question" in qa.status.text() or not qa.busy, timeout=WAIT_MS)
        assert "asking asked a question; quick ask cannot show forms" in qa.status.text()
        qtbot.waitUntil(lambda: not qa.busy, timeout=WAIT_MS)
        said = next(m["content"] for m in reversed(ollama_server.chat_requests[-1]["messages"])
                    if m["role"] == "tool")
        assert "the user declined to give the booking details" in said
    finally:
        qa.close()
        qa.shutdown()
