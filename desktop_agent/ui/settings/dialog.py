"""The Settings dialog (Ctrl+,): the provider, then one tab per page — Ollama (:mod:`.ollama_page`),
OpenAI-compatible (:mod:`.openai_page`), Generation (:mod:`.generation_page`), Tools (:mod:`.tools_page`),
Appearance (:mod:`.appearance_page`), MCP servers (:mod:`.mcp_page`), Desktop, Presets (:mod:`.presets_page`) —
Save and Cancel. Choosing a preset on
the OpenAI-compatible tab chooses that provider too.

Use::

    dialog = SettingsDialog(settings, secrets, parent=window, assembly=window.assembly, pull=window.pull)
    dialog.settings_saved.connect(window.apply_settings)  # the new Settings, from the next turn on
    dialog.open()                                          # or SettingsDialog.edit(...) -> Settings | None

- Every field is validated through :class:`~desktop_agent.core.settings.Settings` itself (one source of
  truth): each page gives its values as dotted keys, the dialog applies them all to the settings it was
  opened with, and each page shows the messages for its fields. An invalid value (a URL without scheme,
  a negative timeout, a bad keep_alive) is shown under its field, the status line says where to look,
  and Save is disabled. A host that does not answer is a warning, never a block.
- Backends (Test connection, the model list, Delete, Pull) are built only by the
  :class:`~desktop_agent.core.assembly.Assembly`; every background call (those, and reading and saving
  keys, which can wait on a keyring unlock prompt) runs on the dialog's
  :class:`~desktop_agent.ui.tasks.TaskRunner`, pulls on the window's
  :class:`~desktop_agent.ui.pull.PullController`. Closing the dialog cancels them, stops a pull it
  started (its HTTP stream is closed) and waits a bounded time; nothing is delivered to it afterwards.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QT_TRANSLATE_NOOP, QSize, Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QScrollArea,
    QStyle,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.services import AppEnv, current_env, ollama_host_note, save_edit
from desktop_agent.core.settings import Settings
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.pull import PullController
from desktop_agent.ui.settings.appearance_page import AppearancePage
from desktop_agent.ui.settings.common import SettingsPage, field_message, note_label, show
from desktop_agent.ui.settings.desktop_page import DesktopPage
from desktop_agent.ui.settings.generation_page import GenerationPage
from desktop_agent.ui.settings.mcp_page import McpPage
from desktop_agent.ui.settings.ollama_page import OllamaPage
from desktop_agent.ui.settings.openai_page import OpenAIPage
from desktop_agent.ui.settings.presets_page import PresetsPage
from desktop_agent.ui.settings.tools_page import ToolsPage
from desktop_agent.ui.tasks import TaskRunner

#: how long closing the dialog waits for its running background calls (they are cancelled first)
SHUTDOWN_WAIT_S = 3.0
#: the dialog's own keys (listed in Help → Keyboard shortcuts); the first saves
SETTINGS_KEYS = (("Ctrl+S", QT_TRANSLATE_NOOP("Shortcuts", "Save the settings")),
                 ("Ctrl+Tab", QT_TRANSLATE_NOOP("Shortcuts", "The next page (also Ctrl+PgDown)")),
                 ("Ctrl+Shift+Tab", QT_TRANSLATE_NOOP("Shortcuts", "The previous page (also Ctrl+PgUp)")),
                 ("Esc", QT_TRANSLATE_NOOP("Shortcuts", "Close Settings without saving")))
OLLAMA_TAB, OPENAI_TAB, GENERATION_TAB, TOOLS_TAB, APPEARANCE_TAB, MCP_TAB = 0, 1, 2, 3, 4, 5


def _scrolling(page: QWidget) -> QScrollArea:
    """``page`` in a frameless scroll area: a page taller than the dialog (many errors shown at once)
    scrolls instead of being squeezed, wrapped notes drawn over the fields below them."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(page)
    return area


def _dotted(loc: tuple[Any, ...]) -> str:
    """A pydantic error location as the dotted setting name (``("ollama", "host")`` → ``ollama.host``)."""
    parts = [str(p) for p in loc]
    if len(parts) >= 2 and parts[0] in Settings.model_fields and parts[0] not in ("backend", "version"):
        return f"{parts[0]}.{parts[1]}"
    return parts[0] if parts else "settings"


class SettingsDialog(QDialog):
    """Edit :class:`Settings` and the OpenAI-compatible API keys.

    ``settings``: the current settings (not modified). ``secrets``: where keys are read and saved
    (default: the assembly's, else a new :class:`SecretStore`). ``assembly``: builds every backend
    (default: ``Assembly(secrets=secrets)``). ``pull``: the window's pull controller (default: one of the
    dialog's own). ``settings_path``: the file Save writes (default: the user config dir).
    ``auto_refresh``: list the Ollama models in the background when the dialog opens. ``env``: the environment
    the notes about ``OLLAMA_HOST`` and ``DESKTOP_AGENT_THEME`` come from (default: this process's).
    ``saver``: writes what changed from :attr:`started_from` to the settings being saved, on top of the file as
    it is now, and returns what the file then holds (default: :func:`~desktop_agent.core.services.save_edit`;
    the window passes :meth:`Services.save_settings <desktop_agent.core.services.Services.save_settings>`).

    On Save: only the settings changed here are written — a change another process (``desktop-agent mcp add``)
    made to the file meanwhile is kept — changed keys are saved through ``secrets``, then
    :attr:`settings_saved` is emitted with the new saved :class:`Settings` and the dialog is accepted
    (:attr:`saved_settings` holds it too).
    """

    settings_saved = Signal(object)

    def __init__(
        self,
        settings: Settings,
        secrets: SecretStore | None = None,
        parent: QWidget | None = None,
        *,
        assembly: Assembly | None = None,
        pull: PullController | None = None,
        settings_path: Path | None = None,
        auto_refresh: bool = True,
        file_host: str | None = None,
        env: AppEnv | None = None,
        saver: Callable[[Settings, Settings], Settings] | None = None,
    ):
        super().__init__(parent)
        self.setWindowTitle(translate("Dialog", "Settings"))
        self.setObjectName("SettingsDialog")
        self.setAccessibleName(translate("Dialog", "Settings"))
        self.setSizeGripEnabled(True)
        if secrets is None:
            secrets = assembly.secrets if assembly is not None and assembly.secrets is not None else SecretStore()
        self._secrets = secrets
        self._assembly = assembly if assembly is not None else Assembly(secrets=secrets)
        self._original = settings
        #: the Ollama host the settings file holds, when the dialog shows the one OLLAMA_HOST gives: an
        #: unchanged host field writes this one back, so the environment never lands in the file
        self._file_host = file_host
        self._settings_path = settings_path
        self._env = env if env is not None else current_env()
        self._saver = saver
        self.saved_settings: Settings | None = None
        self.key_locations: dict[str, str] = {}
        self._candidate: Settings | None = settings
        self._saving = False
        self._loading = True

        self.tasks = TaskRunner(self)
        self._pull = pull if pull is not None else PullController(self._assembly, parent=self)
        self._build()
        self._load(settings)
        self._loading = False
        self._fit_pages()
        self._validate()
        if auto_refresh and settings.ollama.host:
            self.ollama_page.refresh_models(quiet=True)
        self.resize(720, 640)

    # ---- construction --------------------------------------------------------------------------

    def _build(self) -> None:
        root = QVBoxLayout(self)

        provider_row = QHBoxLayout()
        provider_label = QLabel(translate("Dialog", "Provider:"))
        self.ollama_radio = QRadioButton(translate("Dialog", "&Ollama (local models)"))
        self.openai_radio = QRadioButton(translate("Dialog", "Open&AI-compatible server"))
        self.ollama_radio.setAccessibleName(translate("Dialog", "Provider: Ollama"))
        self.openai_radio.setAccessibleName(translate("Dialog", "Provider: OpenAI-compatible"))
        self._provider_group = QButtonGroup(self)
        self._provider_group.addButton(self.ollama_radio)
        self._provider_group.addButton(self.openai_radio)
        provider_row.addWidget(provider_label)
        provider_row.addWidget(self.ollama_radio)
        provider_row.addWidget(self.openai_radio)
        provider_row.addStretch(1)
        root.addLayout(provider_row)

        self.ollama_page = OllamaPage(self._assembly, self.tasks, self._pull,
                                      host_note=ollama_host_note(self._env.ollama_host))
        self.openai_page = OpenAIPage(self._assembly, self._secrets, self.tasks)
        self.generation_page = GenerationPage()
        self.tools_page = ToolsPage(self._assembly, self.tasks)
        self.tools_page.show_rules(self._assembly.permissions.rules)
        self.appearance_page = AppearancePage(theme_override=self._env.theme)
        self.mcp_page = McpPage(self._assembly, self._secrets, self.tasks)
        self.desktop_page = DesktopPage()
        self.presets_page = PresetsPage()
        self.pages: list[SettingsPage] = [
            self.ollama_page, self.openai_page, self.generation_page, self.tools_page, self.appearance_page,
            self.mcp_page, self.desktop_page, self.presets_page,
        ]
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName(translate("Dialog", "Settings sections"))
        self._areas = [_scrolling(page) for page in self.pages]
        titles = (translate("Dialog", "Ollama"), translate("Dialog", "OpenAI-compatible"), translate("Dialog",
                "Generation"), translate("Dialog", "Tools"), translate("Dialog", "Appearance"), translate("Dialog",
                        "MCP servers"), translate("Dialog", "Desktop"), translate("Dialog", "Presets"))
        for area, title in zip(self._areas, titles, strict=True):
            area.setAccessibleName(title)  # the page's scroll area takes the focus: a reader says which page
            self.tabs.addTab(area, title)
        root.addWidget(self.tabs, 1)

        self.status_label = note_label(translate("Dialog", "Settings status"))
        root.addWidget(self.status_label)

        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setAccessibleName(translate("Dialog", "Save settings"))
        self.cancel_button = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        root.addWidget(self.buttons)

        for page in self.pages:
            page.changed.connect(self._validate)
        # a model picked on a provider's page is the one chats use with that provider
        self.ollama_page.model_chosen.connect(self._ollama_model_chosen)
        self.ollama_page.models_listed.connect(self._ollama_models_listed)
        self.openai_page.model_chosen.connect(self._openai_model_chosen)
        self.openai_page.models_listed.connect(self._openai_models_listed)
        for backend, page in (("ollama", self.ollama_page), ("openai", self.openai_page)):
            page.connection_tested.connect(lambda names, b=backend, p=page: self._connection_tested(b, p, names))
        self.openai_page.preset_chosen.connect(self._openai_preset_chosen)
        self.mcp_page.servers_ready.connect(self.tools_page.tool_list.refresh)  # their tools are listed now
        self.ollama_radio.toggled.connect(self._provider_toggled)
        save = QShortcut(QKeySequence(SETTINGS_KEYS[0][0]), self)
        save.activated.connect(self._save)
        # the next and previous page from anywhere in the dialog (a tab widget knows these keys only while
        # the focus is inside it, not on the provider's radio buttons or the Save button)
        for keys, step in (("Ctrl+Tab", 1), ("Ctrl+PgDown", 1), ("Ctrl+Shift+Tab", -1), ("Ctrl+PgUp", -1)):
            page_key = QShortcut(QKeySequence(keys), self)
            page_key.activated.connect(lambda step=step: self._step_page(step))

    def _step_page(self, step: int) -> None:
        """Show the next (``step`` 1) or previous (-1) page, round the ends, with the keyboard in it."""
        self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())
        self.tabs.currentWidget().setFocus(Qt.FocusReason.TabFocusReason)

    def _fit_pages(self) -> None:
        """The dialog's minimum size: every page fits whole, at the widest page's narrowest width, while it
        shows no error (wrapped hints counted at that width)."""
        width = max(page.minimumSizeHint().width() for page in self.pages)
        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        for area, page in zip(self._areas, self.pages, strict=True):
            height = page.heightForWidth(width) if page.hasHeightForWidth() else page.sizeHint().height()
            area.setMinimumSize(QSize(width + bar, max(height, page.minimumSizeHint().height())))

    def _load(self, s: Settings) -> None:
        (self.ollama_radio if s.backend == "ollama" else self.openai_radio).setChecked(True)
        for page in self.pages:
            page.load(s)
        self.tabs.setCurrentIndex(OLLAMA_TAB if s.backend == "ollama" else OPENAI_TAB)

    def show_page(self, title: str) -> None:
        """Show the page titled ``title`` (nothing happens for "" or an unknown title)."""
        for index in range(self.tabs.count()):
            if title and self.tabs.tabText(index) == title:
                self.tabs.setCurrentIndex(index)

    # ---- the provider and its model ------------------------------------------------------------

    def backend(self) -> str:
        """The provider chosen in the dialog: ``"ollama"`` or ``"openai"``."""
        return "ollama" if self.ollama_radio.isChecked() else "openai"

    def _provider_toggled(self, _ollama_checked: bool) -> None:
        if self._loading:
            return
        current = self.backend()
        self.generation_page.show_backend(current)
        if self.tabs.currentIndex() in (OLLAMA_TAB, OPENAI_TAB):  # the chosen provider's own tab
            self.tabs.setCurrentIndex(OLLAMA_TAB if current == "ollama" else OPENAI_TAB)
        self._validate()

    def _ollama_model_chosen(self, name: str) -> None:
        self.generation_page.set_model("ollama", name)
        self._validate()

    def _openai_model_chosen(self, name: str) -> None:
        self.generation_page.set_model("openai", name)
        self._validate()

    def _openai_preset_chosen(self, _name: str) -> None:
        self.openai_radio.setChecked(True)  # a preset is a provider to use, not just a URL to fill in

    def _ollama_models_listed(self, names: list[str]) -> None:
        self.generation_page.set_choices("ollama", names)

    def _openai_models_listed(self, names: list[str]) -> None:
        self.generation_page.set_choices("openai", names)

    def _connection_tested(self, backend: str, page: Any, names: list[str]) -> None:
        """Test connection worked: when the server does not have the model chats would use, use its first."""
        current = self.generation_page.model_of(backend)
        served = set(names) | {n.removesuffix(":latest") for n in names if backend == "ollama"}
        if names and current not in served:
            self.generation_page.set_model(backend, names[0])
            page.model_replaced(current, names[0])
            self._validate()

    # ---- validation ------------------------------------------------------------------------------

    def _validate(self) -> Settings | None:
        """Check every field through :class:`Settings`; show problems inline; enable Save. Returns the
        candidate settings (None while something is invalid)."""
        if self._loading:
            return None
        changes: dict[str, Any] = {"backend": self.backend()}
        errors: dict[str, str] = {}
        for page in self.pages:
            changes.update(page.values())
            errors.update(page.input_errors())
        candidate: Settings | None = None
        try:
            candidate = self._original.updated(changes)
        except ValidationError as exc:
            for err in exc.errors():
                errors.setdefault(_dotted(tuple(err.get("loc", ()))), field_message(err.get("msg", "invalid value")))
        marked = [where for page in self.pages for where in page.show_errors(errors)]
        unplaced = {k: v for k, v in errors.items() if not any(page.owns(k) for page in self.pages)}
        if unplaced:  # a field without its own label: say it in the status line
            show(self.status_label, "; ".join(f"{k}: {v}" for k, v in unplaced.items()), "err")
            candidate = None
        elif candidate is None or marked:
            show(self.status_label, translate("Dialog", "To save, fix: ") + ", ".join(marked) + ".", "err")
            candidate = None
        else:
            show(self.status_label, self.openai_page.key_warning(candidate), "warn")
        self._candidate = candidate
        self.save_button.setEnabled(candidate is not None and not self._saving)
        return candidate

    # ---- pull ------------------------------------------------------------------------------------

    def start_pull(self, name: str) -> None:
        """Pull ``name`` from the Ollama host being edited, with a progress bar on the Ollama tab. Does
        nothing while another pull runs."""
        self.tabs.setCurrentIndex(OLLAMA_TAB)
        self.ollama_page.start_pull(name)

    def cancel_pull(self) -> None:
        """Stop the pull started here (the HTTP stream is closed; the dialog stays usable)."""
        self.ollama_page.pull.cancel()

    def pulling(self) -> bool:
        return self.ollama_page.pull.pulling()

    # ---- background work and closing -------------------------------------------------------------

    def busy(self) -> bool:
        """True while a background call of the dialog (test, list, pull, delete, keys) still runs."""
        return self.tasks.active > 0 or self.ollama_page.pull.working()

    def shutdown(self, wait_s: float = SHUTDOWN_WAIT_S) -> bool:
        """Cancel running calls (a pull started here is stopped and its HTTP stream closed) and wait for
        them, at most ``wait_s`` in all; nothing is delivered to the dialog afterwards. A call that cannot
        stop in time (a request still connecting) finishes on its own daemon thread. True when every call
        had returned."""
        deadline = time.monotonic() + wait_s
        self.openai_page.keys.shutdown()
        self.mcp_page.shutdown()
        self.tasks.close()
        pulled = self.ollama_page.pull.shutdown(wait_s)
        returned = self.tasks.wait(max(0.0, deadline - time.monotonic()))
        return pulled and returned

    def done(self, result: int) -> None:  # Qt's: accept, reject, Esc, close all end here
        self.shutdown()
        super().done(result)

    # ---- save ------------------------------------------------------------------------------------

    def _save(self) -> None:
        if self._saving:
            return
        self.openai_page.keys.follow_now()  # the base URL was just edited: its keys list comes first
        settings = self._validate()
        if settings is None:
            return
        if self._file_host and settings.ollama.host == self._original.ollama.host:
            settings = settings.updated({"ollama.host": self._file_host})
        try:
            if self._saver is not None:
                settings = self._saver(self.started_from, settings)
            else:
                settings = save_edit(self.started_from, settings, self._settings_path)
        except (OSError, ValueError) as exc:  # ValueError: the file's settings refuse a change (pydantic)
            show(self.status_label, translate("Dialog", "The settings could not be saved: {exc}").format(exc=exc),
                    "err")
            return
        self._saving = True  # the MCP servers' secrets first: the servers restart with them once this emits

        def secrets_saved(lost: bool) -> None:
            self._saving = False
            if lost:
                show(self.status_label, translate("Dialog",
                        "The MCP servers' secrets could not go into the system keyring: {problem} They are kept for "
                        "this session only.").format(problem=self._secrets.problem), "warn")
            self._save_keys(settings, mcp_lost=lost)

        def secrets_failed(text: str) -> None:
            self._saving = False
            self.save_button.setEnabled(True)
            show(self.status_label, translate("Dialog", "The MCP servers' secrets could not be saved: {text}").format(
                    text=text), "err")

        if not self.mcp_page.save_secrets(secrets_saved, secrets_failed):
            self._saving = False
            self._save_keys(settings)
            return
        self.save_button.setEnabled(False)
        show(self.status_label, translate("Dialog", "Saving…"), "info")

    @property
    def started_from(self) -> Settings:
        """The settings as the file held them when the dialog opened (the host the file holds, not the one
        ``OLLAMA_HOST`` gives): Save writes what differs from these, nothing else."""
        if self._file_host:
            return self._original.updated({"ollama.host": self._file_host})
        return self._original

    def _save_keys(self, settings: Settings, mcp_lost: bool = False) -> None:
        """The settings file is written: save the API keys, then tell the window."""

        def saved(where_by_url: dict[str, str], lost: bool) -> None:
            self._saving = False
            if not lost:
                self._finish_save(settings, where_by_url)
                return
            # the keyring failed while saving: say so before closing
            self.saved_settings = settings
            self.settings_saved.emit(settings)
            show(
                self.status_label,
                translate("Dialog",
                        "Settings saved, but the keys could not go into the system keyring: {problem} They are kept "
                        "for this session only. Press Cancel to close.").format(problem=self._secrets.problem),
                "warn",
            )
            self.save_button.setEnabled(True)
            self.cancel_button.setText(translate("Dialog", "Close"))

        def failed(text: str) -> None:
            self._saving = False
            self.save_button.setEnabled(True)
            show(self.status_label, translate("Dialog", "The keys could not be saved: {text}").format(text=text), "err")

        if not self.openai_page.keys.save(saved, failed):
            if mcp_lost:  # said in the status line: the dialog stays open to show it
                self.saved_settings = settings
                self.settings_saved.emit(settings)
                self.save_button.setEnabled(True)
                self.cancel_button.setText(translate("Dialog", "Close"))
                return
            self._finish_save(settings, {})
            return
        self._saving = True
        self.save_button.setEnabled(False)
        show(self.status_label, translate("Dialog", "Saving…"), "info")

    def _finish_save(self, settings: Settings, where_by_url: dict[str, str]) -> None:
        self.saved_settings = settings
        self.key_locations = where_by_url
        self.settings_saved.emit(settings)
        self.accept()

    @classmethod
    def edit(
        cls, settings: Settings, secrets: SecretStore | None = None, parent: QWidget | None = None, **kwargs: Any
    ) -> Settings | None:
        """Show the dialog modally; the saved :class:`Settings`, or None when cancelled."""
        dialog = cls(settings, secrets, parent, **kwargs)
        try:
            dialog.exec()
            return dialog.saved_settings
        finally:
            dialog.deleteLater()
