"""The ONE place that turns errors into what the window shows.

- :func:`describe` maps a core error (:mod:`desktop_agent.core.errors`) to an :class:`ErrorView`: a
  short title, the text (the error's own actionable sentence) and the actions offered next to it
  (Retry; ``Pull <model>`` for a missing Ollama model; ``Use <model>`` for installed alternatives;
  ``Open settings`` for a rejected key…). Expected failures are shown inline in the chat.
- :func:`describe_saved` does the same for a failure saved with a chat (its class name and text only),
  shown when the chat is opened again.
- Anything else is unexpected: :func:`report_unexpected` logs it with its traceback to
  :func:`desktop_agent.core.paths.log_file` and opens :class:`UnexpectedErrorDialog` ("Copy details",
  the log file path). A bare traceback is never shown.
- :func:`setup_logging` installs the rotating log file; :func:`install_excepthook` routes uncaught
  exceptions (GUI thread and other threads) to :func:`report_unexpected`.
"""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core import errors, paths
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.logs import setup_logging  # noqa: F401 - the window calls it from here
from desktop_agent.ui.i18n import translate, translate_text

if TYPE_CHECKING:
    from desktop_agent.ui.main_window import MainWindow

log = logging.getLogger("desktop_agent.ui")

# Action kinds the window knows how to perform (:func:`perform`).
RETRY = "retry"
PULL_MODEL = "pull_model"
USE_MODEL = "use_model"
OPEN_SETTINGS = "open_settings"
NEW_CHAT = "new_chat"
OPEN_DATA_FOLDER = "open_data_folder"


@dataclass(frozen=True)
class ErrorAction:
    kind: str
    label: str
    payload: Any = None


@dataclass(frozen=True)
class ErrorView:
    """What the inline error card shows. ``unexpected``: not a core error (a bug) → the dialog."""

    title: str
    text: str
    actions: list[ErrorAction] = field(default_factory=list)
    icon: str = "error"  # "error" | "warning"
    unexpected: bool = False
    #: the status bar's short label when a server check fails with this error
    status: str = QT_TRANSLATE_NOOP("Errors", "Server problem")


def _retry(label: str | None = None) -> ErrorAction:
    return ErrorAction(RETRY, label or translate("Errors", "Retry"))


def _settings(label: str | None = None) -> ErrorAction:
    return ErrorAction(OPEN_SETTINGS, label or translate("Errors", "Open settings"))


def _unreachable(error: errors.BackendUnreachable) -> tuple[str, list[ErrorAction]]:
    title = translate("Errors", "Can't reach Ollama") if error.backend == "ollama" else translate("Errors",
            "Can't reach the server")
    return title, [_retry(), _settings()]


def _model_missing(error: errors.ModelNotFound) -> tuple[str, list[ErrorAction]]:
    actions: list[ErrorAction] = []
    if error.backend == "ollama":
        title = translate("Errors", "Model '{model}' is not installed").format(model=error.model)
        actions.append(ErrorAction(PULL_MODEL, translate("Errors", "Pull {model}").format(model=error.model),
                error.model))
    else:
        title = translate("Errors", "Model '{model}' is not available").format(model=error.model)
    actions += [ErrorAction(USE_MODEL, translate("Errors", "Use {name}").format(name=name),
            name) for name in error.available[:3]]
    if error.backend != "ollama":
        actions.append(_settings())
    return title, actions


@dataclass(frozen=True)
class _Row:
    """One line of :data:`TABLE`: how the window shows one kind of error."""

    kind: type[BaseException]
    #: the card's title, or a function of the error giving (title, actions)
    title: str | Callable[[Any], tuple[str, list[ErrorAction]]]
    actions: tuple[Callable[[], ErrorAction], ...] = ()
    icon: str = "error"
    #: the status bar's short label when a server check fails with this error
    status: str = QT_TRANSLATE_NOOP("Errors", "Server problem")
    #: the card's title for a saved failure of a row whose title needs the error itself
    saved_title: str = ""


#: core error → card title, actions, icon and status-bar label. The first row whose class matches wins, so
#: a subclass comes before its base. The card's text is always the error's own sentence.
TABLE: tuple[_Row, ...] = (
    _Row(errors.BackendUnreachable, _unreachable, icon="warning", status=QT_TRANSLATE_NOOP("Errors",
            "Server not reachable"),
         saved_title=QT_TRANSLATE_NOOP("Errors", "Can't reach the server")),
    _Row(errors.NoApiKey, QT_TRANSLATE_NOOP("Errors", "No API key"), (lambda: _settings(), _retry),
            status=QT_TRANSLATE_NOOP("Errors", "No API key")),
    _Row(errors.KeyringLocked, QT_TRANSLATE_NOOP("Errors", "Keyring locked"), (_retry, lambda: _settings()), "warning",
            status=QT_TRANSLATE_NOOP("Errors", "Keyring locked")),
    _Row(errors.AuthenticationFailed, QT_TRANSLATE_NOOP("Errors", "API key rejected"), (lambda: _settings(), _retry),
            status=QT_TRANSLATE_NOOP("Errors", "API key rejected")),
    _Row(errors.ModelNotFound, _model_missing, saved_title=QT_TRANSLATE_NOOP("Errors", "Model not available")),
    _Row(errors.RateLimited, QT_TRANSLATE_NOOP("Errors", "Rate limited"), (_retry,), "warning"),
    _Row(errors.OutOfQuota, QT_TRANSLATE_NOOP("Errors", "Out of quota"), (lambda: _settings(), _retry),
            status=QT_TRANSLATE_NOOP("Errors", "Out of quota")),
    _Row(errors.AllKeysFailed, QT_TRANSLATE_NOOP("Errors", "Every API key failed"), (_retry, lambda: _settings())),
    _Row(errors.ContextTooLong, QT_TRANSLATE_NOOP("Errors", "Conversation too long"),
         (lambda: ErrorAction(NEW_CHAT, translate("Errors", "New chat")), lambda: _settings()), "warning"),
    _Row(errors.ToolsNotSupported, QT_TRANSLATE_NOOP("Errors", "This model can't use tools"), (lambda: _settings(),),
            "warning"),
    _Row(errors.MalformedToolCall, QT_TRANSLATE_NOOP("Errors", "Unreadable tool call"), (_retry,)),
    _Row(errors.EmptyAnswer, QT_TRANSLATE_NOOP("Errors", "Empty answer"), (_retry,), "warning"),
    _Row(errors.ServerStoppedResponding, QT_TRANSLATE_NOOP("Errors", "The server stopped responding"), (_retry,
            lambda: _settings()), "warning",
         status=QT_TRANSLATE_NOOP("Errors", "Server not responding")),
    _Row(errors.AnswerCutOff, QT_TRANSLATE_NOOP("Errors", "Answer cut off"), (_retry,), "warning"),
    _Row(errors.MaxStepsExceeded, QT_TRANSLATE_NOOP("Errors", "Too many steps"), (lambda: _retry(translate("Errors",
            "Continue")),
            lambda: _settings()), "warning"),
    _Row(errors.SettingsError, QT_TRANSLATE_NOOP("Errors", "Settings problem"), (lambda: _settings(),)),
    _Row(errors.ServerTimedOut, QT_TRANSLATE_NOOP("Errors", "No answer from the server"), (_retry, lambda: _settings(
            )), "warning",
         status=QT_TRANSLATE_NOOP("Errors", "Server not responding")),
    _Row(errors.WebPageAnswer, lambda e: (translate("Errors", "Web page instead of an answer (HTTP {status})").format(
            status=e.status),
                                          [_retry(), _settings()] if e.retryable else [_settings(), _retry()]),
         status=QT_TRANSLATE_NOOP("Errors", "Server problem"), saved_title=QT_TRANSLATE_NOOP("Errors",
                 "Web page instead of an answer")),
    _Row(errors.NotAnApi, lambda e: (translate("Errors", "Not an Ollama API") if e.backend == "ollama" else translate(
            "Errors", "Not an OpenAI-compatible API"),
                                     [_settings(), _retry()]),
         status=QT_TRANSLATE_NOOP("Errors", "Not an API"), saved_title=QT_TRANSLATE_NOOP("Errors",
                 "Not a model server's API")),
    _Row(errors.BackendError, QT_TRANSLATE_NOOP("Errors", "Server error"), (_retry,)),
    _Row(errors.StoreDamaged, QT_TRANSLATE_NOOP("Errors", "Chat history damaged"), (lambda: ErrorAction(
            OPEN_DATA_FOLDER, translate("Errors",
            "Open data folder")),)),
    _Row(errors.StoreError, QT_TRANSLATE_NOOP("Errors", "Chat history problem"), (lambda: ErrorAction(OPEN_DATA_FOLDER,
            translate("Errors",
            "Open data folder")),)),
)


def error_text(error: BaseException) -> str:
    """The error's own sentence — what happened, then how to fix it in the window — in the window's language (the
    core marks its texts; :func:`~desktop_agent.ui.i18n.translate_text`). Anything else: its text as it is."""
    english = str(error).strip() or type(error).__name__
    if not isinstance(error, errors.AgentError):
        return english
    what, hint = translate_text(error.what).strip(), translate_text(error.hint).strip()
    if what == str(error.what).strip() and hint == str(error.hint).strip():
        return english  # not translated: exactly the English sentence
    if not hint:
        return what or english
    if what and what[-1] not in ".!?:;—)。!?:;)":
        what += "。"
    return f"{what}{'' if what.endswith(('。', '!', '?', ';', ':', ')')) else ' '}{hint}"


def describe(error: BaseException) -> ErrorView:
    """The user-facing view of ``error``. Never raises; the text never contains a traceback."""
    text = error_text(error)
    original = getattr(error, "original", None)
    if isinstance(original, BaseException):  # core.agent.UnexpectedError: a bug caught by the loop
        return ErrorView(
            translate("Errors", "Unexpected error"),
            translate("Errors",
                    "Something unexpected went wrong ({kind}). Your message is kept; try again. Details are in the "
                    "log file {log_file}.").format(kind=type(original).__name__, log_file=paths.log_file()),
            [_retry()],
            unexpected=True,
        )
    for row in TABLE:
        if isinstance(error, row.kind):
            if callable(row.title):
                title, actions = row.title(error)
            else:
                title, actions = translate("Errors", row.title), [make() for make in row.actions]
            return ErrorView(title, text, actions, row.icon, status=translate("Errors", row.status))
    if isinstance(error, errors.AgentError):
        return ErrorView(translate("Errors", "Something went wrong"), text, [_retry()] if error.retryable else [])
    return ErrorView(
        translate("Errors", "Unexpected error"),
        translate("Errors", "An unexpected error happened ({kind}). Details are in the log file {log_file}.").format(
                kind=type(error).__name__, log_file=paths.log_file()),
        [_retry()],
        unexpected=True,
    )


def describe_saved(kind: str, text: str) -> ErrorView:
    """The card of a failed turn saved with a chat (``kind``: the error's class name, ``text``: its sentence),
    when the chat is opened again. Only the class is known, not the error: the card offers Retry and the
    actions of that class that need nothing from the error (Open settings, New chat… where the live error
    would); model-specific ones (Pull, Use <model>) become Retry + Open settings. Never raises."""
    text = text.strip() or kind
    cls = getattr(errors, kind, None)
    row = next((r for r in TABLE if isinstance(cls, type) and issubclass(cls, r.kind)), None)
    if row is None:
        title = translate("Errors", "Unexpected error") if cls is errors.UnexpectedError else translate("Errors",
                "Something went wrong")
        return ErrorView(title, text, [_retry()])
    if callable(row.title):
        title = translate("Errors", row.saved_title) if row.saved_title else translate("Errors", "Something went wrong")
        return ErrorView(title, text, [_retry(), _settings()], row.icon)
    actions = [make() for make in row.actions]
    if not any(a.kind == RETRY for a in actions):
        actions.insert(0, _retry())
    return ErrorView(translate("Errors", row.title), text, actions, row.icon)


def status_label(error: BaseException) -> str:
    """The status bar's short label for a failed server check ("Server not reachable", "API key rejected"…):
    only a connection failure is "not reachable" — a server that answers 401 is reachable, the key is not."""
    return translate("Errors", describe(error).status)


# ---- logging --------------------------------------------------------------------------------------

def one_line(error: BaseException, secret_words: Sequence[str] = ()) -> str:
    """``error`` as one status line (the Settings dialog, a pull): a core error's own actionable text,
    anything else prefixed with its type name; any of ``secret_words`` (API keys) masked."""
    from desktop_agent.core.backends.keypool import scrub

    text = error_text(error)
    if not isinstance(error, errors.AgentError):
        text = f"{type(error).__name__}: {text}"
    return scrub(text, secret_words) if secret_words else text


def unexpected_cause(error: BaseException) -> BaseException:
    """The exception behind ``error`` (``UnexpectedError.original``), or ``error`` itself."""
    original = getattr(error, "original", None)
    return original if isinstance(original, BaseException) else error


def details_text(exc_type, exc, tb) -> str:
    """What "Copy details" copies: version, platform, the traceback."""
    import platform

    from desktop_agent import __version__

    try:
        from PySide6 import __version__ as pyside
    except ImportError:  # pragma: no cover
        pyside = "?"
    head = (
        translate("Errors",
                "desktop-agent {version} · Python {python_version} · PySide6 {pyside} · {platform}").format(
                        version=__version__, python_version=platform.python_version(), pyside=pyside,
                                platform=platform.platform())
    )
    return head + "\n\n" + "".join(traceback.format_exception(exc_type, exc, tb))


# ---- the dialog -----------------------------------------------------------------------------------


class UnexpectedErrorDialog(QDialog):
    """"Something went wrong": the one-line reason, the log file path, Copy details, Close."""

    def __init__(self, summary: str, details: str, log_path: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(translate("Errors", "Unexpected error"))
        self.setAccessibleName(translate("Errors", "Unexpected error"))
        self.setMinimumWidth(520)
        self.details = details
        lay = QVBoxLayout(self)
        lay.setSpacing(10)
        lay.setContentsMargins(18, 18, 18, 14)
        head = QHBoxLayout()
        from desktop_agent.ui import icons, theme

        th = theme.current()
        mark = QLabel()
        mark.setPixmap(icons.pixmap("error", 32, th.err))
        mark.setAlignment(Qt.AlignmentFlag.AlignTop)
        head.addWidget(mark)
        text = QLabel(
            translate("Errors", "<b>Something went wrong.</b><br>The app is still running; your chat is saved. "
            "If this keeps happening, please report it with the details below.")
        )
        text.setWordWrap(True)
        head.addWidget(text, 1)
        lay.addLayout(head)
        self.summary = QLabel(summary)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAccessibleName(translate("Errors", "Error summary"))
        lay.addWidget(self.summary)
        self.log_label = QLabel(translate("Errors", "Log file: {log_path}").format(log_path=log_path))
        self.log_label.setWordWrap(True)
        self.log_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.log_label.setStyleSheet(f"color: {th.muted};")
        self.log_label.setAccessibleName(translate("Errors", "Log file path"))
        lay.addWidget(self.log_label)
        self.details_box = QPlainTextEdit(details)
        self.details_box.setReadOnly(True)
        self.details_box.setAccessibleName(translate("Errors", "Error details"))
        self.details_box.setVisible(False)
        self.details_box.setMinimumHeight(180)
        lay.addWidget(self.details_box)
        buttons = QDialogButtonBox()
        self.show_button = QPushButton(translate("Errors", "Show details"))
        self.show_button.setCheckable(True)
        self.show_button.toggled.connect(self._toggle)
        self.copy_button = QPushButton(translate("Errors", "Copy details"))
        self.copy_button.setAccessibleName(translate("Errors", "Copy details"))
        self.copy_button.clicked.connect(self.copy_details)
        buttons.addButton(self.show_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        close = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        close.clicked.connect(self.accept)
        lay.addWidget(buttons)

    def _toggle(self, on: bool) -> None:
        self.details_box.setVisible(on)
        self.show_button.setText(translate("Errors", "Hide details") if on else translate("Errors", "Show details"))
        self.adjustSize()

    def copy_details(self) -> None:
        QApplication.clipboard().setText(self.details)
        self.copy_button.setText(translate("Errors", "Copied ✓"))


class _Reporter(QObject):
    """Brings reports from any thread to the GUI thread (queued signal)."""

    report = Signal(str, str)

    def __init__(self):
        super().__init__()
        self.report.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self.open_dialogs = 0
        #: called instead of showing a dialog (tests set it)
        self.handler = None

    def _show(self, summary: str, details: str) -> None:
        if self.handler is not None:
            self.handler(summary, details)
            return
        if self.open_dialogs:  # one at a time; the rest are in the log
            return
        parent = QApplication.activeWindow()
        dlg = UnexpectedErrorDialog(summary, details, str(paths.log_file()), parent)
        self.open_dialogs += 1
        try:
            dlg.exec()
        finally:
            self.open_dialogs -= 1
            dlg.deleteLater()


_reporter: _Reporter | None = None


def reporter() -> _Reporter:
    """The process-wide reporter (created in the GUI thread by :func:`install_excepthook`)."""
    global _reporter
    if _reporter is None:
        _reporter = _Reporter()
    return _reporter


def report_unexpected(exc: BaseException, where: str = "", tb=None) -> None:
    """Log ``exc`` with its traceback now, and show the dialog from the GUI event loop (any thread may
    call this; the dialog never opens inside the handler that found the error)."""
    tb = tb if tb is not None else exc.__traceback__
    details = details_text(type(exc), exc, tb)
    log.error("Unexpected error%s\n%s", f" in {where}" if where else "", details)
    summary = f"{type(exc).__name__}: {exc}".strip()
    if len(summary) > 300:
        summary = summary[:299] + "…"
    app = QApplication.instance()
    if app is None:
        print(f"desktop-agent: unexpected error: {summary} (details in {paths.log_file()})", file=sys.stderr)
        return
    # always queued: the dialog opens after the current event (or slot) is handled, from any thread
    reporter().report.emit(summary, details)


def install_excepthook() -> None:
    """Uncaught exceptions in Qt slots and in threads → log + dialog, never a bare traceback."""
    reporter()

    def hook(exc_type, exc, tb):
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        report_unexpected(exc, "the window", tb)

    def thread_hook(args: threading.ExceptHookArgs):
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        name = args.thread.name if args.thread else "a thread"
        report_unexpected(args.exc_value, name, args.exc_traceback)

    sys.excepthook = hook
    threading.excepthook = thread_hook


def perform(window: MainWindow, action: ErrorAction, card: Any) -> None:
    """Do what an error card's button asks, in ``window``: retry, pull or use another model, open Settings or
    the data folder, start a new chat."""
    from desktop_agent.ui.help import open_folder

    ctl = window.controller
    if ctl is None:
        return

    def use_model() -> None:
        ctl.pick_model(action.payload)  # for this chat (noted in it), and the default of new chats
        ctl.retry()

    handlers: dict[str, Callable[[], Any]] = {
        RETRY: ctl.retry, OPEN_SETTINGS: window.open_settings, NEW_CHAT: window.new_chat, USE_MODEL: use_model,
        PULL_MODEL: lambda: ctl.pull_model(action.payload, card),
        OPEN_DATA_FOLDER: lambda: open_folder(paths.data_dir())}
    handler = handlers.get(action.kind)
    if handler is not None:
        handler()
