"""ui/errors.py: the one mapping from core errors to what the user sees, the log file, the dialog."""

from __future__ import annotations

import logging

import pytest
from PySide6.QtWidgets import QApplication

from desktop_agent.core import errors, paths
from desktop_agent.core.agent import UnexpectedError
from desktop_agent.ui import errors as ui


@pytest.fixture(autouse=True)
def _drop_log_handler():
    """setup_logging() adds a root handler; remove it so later tests don't log into this tmp dir."""
    yield
    root = logging.getLogger()
    for h in list(root.handlers):
        if h.get_name() == "desktop-agent-file":
            root.removeHandler(h)
            h.close()


def _kinds(view):
    return [a.kind for a in view.actions]


@pytest.mark.parametrize(
    "error, title, kinds",
    [
        (errors.BackendUnreachable("http://127.0.0.1:59999"), "Can't reach Ollama", ["retry", "open_settings"]),
        (errors.BackendUnreachable("http://x/v1", backend="openai"), "Can't reach the server",
         ["retry", "open_settings"]),
        (errors.AuthenticationFailed("https://api.example/v1"), "API key rejected", ["open_settings", "retry"]),
        (errors.RateLimited(3600, "Daily request limit reached."), "Rate limited", ["retry"]),
        (errors.OutOfQuota("https://api.example/v1"), "Out of quota", ["open_settings", "retry"]),
        (errors.ContextTooLong(), "Conversation too long", ["new_chat", "open_settings"]),
        (errors.EmptyAnswer(), "Empty answer", ["retry"]),
        (errors.AnswerCutOff("connection reset"), "Answer cut off", ["retry"]),
        (errors.ServerStoppedResponding(60, "http://127.0.0.1:11434"), "The server stopped responding",
         ["retry", "open_settings"]),
        (errors.BackendError("boom", 500), "Server error", ["retry"]),
        (errors.MaxStepsExceeded(8), "Too many steps", ["retry", "open_settings"]),
        (errors.ToolsNotSupported("tiny"), "This model can't use tools", ["open_settings"]),
        (errors.AllKeysFailed(2, "429"), "Every API key failed", ["retry", "open_settings"]),
        (errors.SettingsError("bad URL"), "Settings problem", ["open_settings"]),
    ],
)
def test_core_errors_map_to_text_and_actions(error, title, kinds):
    view = ui.describe(error)
    assert view.title == title
    assert view.text == str(error)  # the core's actionable sentence, as is
    assert _kinds(view) == kinds
    assert not view.unexpected


def test_model_not_found_offers_pull_and_installed_models():
    """Shared case 06-ollama-model-not-found-404.json."""
    view = ui.describe(errors.ModelNotFound("llama2", available=["qwen3:8b", "llama3.2:3b"]))
    assert view.title == "Model 'llama2' is not installed"
    assert "ollama pull llama2" in view.text
    assert [(a.kind, a.label, a.payload) for a in view.actions] == [
        ("pull_model", "Pull llama2", "llama2"),
        ("use_model", "Use qwen3:8b", "qwen3:8b"),
        ("use_model", "Use llama3.2:3b", "llama3.2:3b"),
    ]
    openai = ui.describe(errors.ModelNotFound("gpt-x", backend="openai", available=["local-model"]))
    assert _kinds(openai) == ["use_model", "open_settings"]


def test_rate_limit_long_wait_text():
    """Shared case 20 (long wait variant): the provider message and 'about 60 minutes'."""
    view = ui.describe(errors.RateLimited(3600, "Daily request limit reached."))
    assert "about 60 minutes" in view.text and "Daily request limit reached." in view.text


def test_unexpected_errors_are_flagged_for_the_dialog():
    try:
        raise KeyError("boom")
    except KeyError as exc:
        wrapped = UnexpectedError(exc)
    view = ui.describe(wrapped)
    assert view.unexpected and _kinds(view) == ["retry"]
    assert "Traceback" not in view.text and str(paths.log_file()) in view.text
    assert ui.unexpected_cause(wrapped) is wrapped.original
    assert ui.describe(RuntimeError("x")).unexpected


@pytest.mark.expect_log("desktop_agent.ui", match="^Unexpected error in a test")
def test_report_unexpected_logs_traceback_and_shows_dialog(qtbot):
    ui.setup_logging()
    seen = []
    rep = ui.reporter()
    rep.handler = lambda summary, details: seen.append((summary, details))
    try:
        try:
            raise ValueError("something broke")
        except ValueError as exc:
            ui.report_unexpected(exc, "a test")
        assert not seen  # queued: shown from the event loop, never inside the caller
        qtbot.waitUntil(lambda: bool(seen), timeout=2000)
    finally:
        rep.handler = None
    assert seen and seen[0][0] == "ValueError: something broke"
    assert "Traceback" in seen[0][1] and "something broke" in seen[0][1]
    for h in logging.getLogger().handlers:
        h.flush()
    text = paths.log_file().read_text(encoding="utf-8")
    assert "Unexpected error in a test" in text and "ValueError: something broke" in text


def test_setup_logging_is_idempotent():
    first = ui.setup_logging()
    second = ui.setup_logging()
    assert first == second == str(paths.log_file())
    names = [h.get_name() for h in logging.getLogger().handlers]
    assert names.count("desktop-agent-file") == 1


def test_dialog_copy_details_and_log_path(qtbot):
    dlg = ui.UnexpectedErrorDialog("ValueError: x", "Traceback (most recent call last):\n ...", "/tmp/app.log")
    qtbot.addWidget(dlg)
    assert "/tmp/app.log" in dlg.log_label.text()
    assert not dlg.details_box.isVisible()
    dlg.copy_button.click()
    assert QApplication.clipboard().text().startswith("Traceback")
    assert dlg.copy_button.text() == "Copied ✓"
    dlg.show()
    dlg.show_button.click()
    assert dlg.details_box.isVisible()
    dlg.close()


def test_server_timed_out_is_a_warning_with_retry_and_settings():
    """A server that accepted the request but stayed silent is not a generic "server error"."""
    from desktop_agent.core.errors import ServerTimedOut

    view = ui.describe(ServerTimedOut("http://127.0.0.1:11434", 300, "ollama"))
    assert view.title == "No answer from the server" and view.icon == "warning"
    assert [a.kind for a in view.actions] == [ui.RETRY, ui.OPEN_SETTINGS]
    assert "did not answer within 300 s" in view.text


@pytest.mark.parametrize(
    "kind, title, kinds, icon",
    [
        ("BackendError", "Server error", ["retry"], "error"),
        ("ServerTimedOut", "No answer from the server", ["retry", "open_settings"], "warning"),
        ("BackendUnreachable", "Can't reach the server", ["retry", "open_settings"], "warning"),
        ("AuthenticationFailed", "API key rejected", ["open_settings", "retry"], "error"),
        ("ModelNotFound", "Model not available", ["retry", "open_settings"], "error"),  # no Pull: no model known
        ("MaxStepsExceeded", "Too many steps", ["retry", "open_settings"], "warning"),
        ("ContextTooLong", "Conversation too long", ["retry", "new_chat", "open_settings"], "warning"),
        ("EmptyAnswer", "Empty answer", ["retry"], "warning"),
        ("UnexpectedError", "Unexpected error", ["retry"], "error"),
        ("SomeErrorOfANewerVersion", "Something went wrong", ["retry"], "error"),
        ("Path", "Something went wrong", ["retry"], "error"),  # a name in core.errors that is no error
    ],
)
def test_a_saved_failure_is_described_by_its_class_name(kind, title, kinds, icon):
    view = ui.describe_saved(kind, "  What happened, and how to fix it.  ")
    assert (view.title, _kinds(view), view.icon) == (title, kinds, icon)
    assert view.text == "What happened, and how to fix it." and not view.unexpected
    assert ui.describe_saved("EmptyAnswer", "").text == "EmptyAnswer"


def test_a_saved_failure_has_the_live_errors_retry_label():
    view = ui.describe_saved("MaxStepsExceeded", "The agent did not finish in 8 steps.")
    assert [a.label for a in view.actions] == ["Continue", "Open settings"]
    live = ui.describe(errors.BackendError("boom", status=500))
    assert ui.describe_saved("BackendError", str(live.text)).actions == live.actions
