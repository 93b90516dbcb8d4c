"""The main window and :func:`run_gui`.

Layout: the chat (:class:`~desktop_agent.ui.chat_view.ChatView`), the chat's quick options
(:class:`~desktop_agent.ui.chat_options.ChatOptions`) and the composer in the centre; the
tool-activity sidebar as a right dock (View → Tool activity, Ctrl+Shift+T); the history panel as a left
dock when :mod:`desktop_agent.ui.history` is present; a toolbar with New chat (Ctrl+N), backend and model
pickers (models listed in the background) and Settings (Ctrl+,); a status bar with backend, model and
whether the server answers.

Start-up is fast: the window's frame is painted first, built from a glance at the settings file with only
PySide6 and light modules (no pydantic); right after the first frame the settings are loaded and the chat
view, options strip, runner and listing built (``_build_rest``), then the store, the history panel and the
server check run (``_late_init``), markdown-it and Pygments come after them, the keyring is read when a key
is first needed, and the model clients (openai, ollama) load on the worker thread with the first turn (the
server check asks with plain HTTP).

All background work goes through :mod:`desktop_agent.ui.agent_runner`.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar, cast

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSizePolicy,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core import paths
from desktop_agent.ui import icons, theme
from desktop_agent.ui.chat.context_meter import ContextMeter, confirm_oversized, oversized
from desktop_agent.ui.compose import Composer
from desktop_agent.ui.dock_fit import DockFitter
from desktop_agent.ui.first_frame import after_first_frame
from desktop_agent.ui.mcp_status import McpStatus
from desktop_agent.ui.model_capabilities import ModelCapabilities
from desktop_agent.ui.model_picker import BACKENDS, ModelPicker
from desktop_agent.ui.server_status import ServerStatus
from desktop_agent.ui.tasks import TaskRunner
from desktop_agent.ui.tool_sidebar import ToolSidebar, audited_decisions, keep_rules_in

if TYPE_CHECKING:  # imported by _import_the_rest(): after the first frame when the window starts staged
    from desktop_agent.core.assembly import Assembly
    from desktop_agent.core.errors import (
        AuthenticationFailed,
        BackendUnreachable,
        KeyringLocked,
        NoApiKey,
        StoreError,
    )
    from desktop_agent.core.events import (
        AnswerFinished,
        ChatUpdated,
        ContextUsage,
        Notice,
        TurnCancelled,
        TurnFailed,
    )
    from desktop_agent.core.messages import Conversation
    from desktop_agent.core.session import ChatSession
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.settings_glance import SettingsGlance
    from desktop_agent.ui import errors as ui_errors
    from desktop_agent.ui.agent_runner import (
        AgentRunner,
        TurnCrashed,
        TurnEnded,
        TurnStarted,
    )
    from desktop_agent.ui.chat.cards import ErrorCard
    from desktop_agent.ui.chat.view import ChatView
    from desktop_agent.ui.chat_options import ChatOptions
    from desktop_agent.ui.errors import ErrorAction
    from desktop_agent.ui.folder_offer import FolderOffer
    from desktop_agent.ui.history.panel import HistoryPanel
    from desktop_agent.ui.model_listing import ModelListing
    from desktop_agent.ui.pull import PullController
    from desktop_agent.ui.settings.dialog import SettingsDialog

log = logging.getLogger(__name__)


def _import_the_rest() -> None:
    """Import what the window needs beyond its first frame — the settings schema and messages (pydantic), the
    agent runner, the chat view — into this module's names (declared for type checkers above). A window
    started staged (:class:`MainWindow`'s ``glance``) paints its first frame without them."""
    if "ChatView" in globals():
        return
    # each name is put in globals() below (hence "unused" here)
    from desktop_agent.core.assembly import Assembly  # noqa: F401
    from desktop_agent.core.errors import (  # noqa: F401
        AuthenticationFailed,
        BackendUnreachable,
        KeyringLocked,
        NoApiKey,
        StoreError,
    )
    from desktop_agent.core.events import (  # noqa: F401
        AnswerFinished,
        ChatUpdated,
        ContextUsage,
        Notice,
        TurnCancelled,
        TurnFailed,
    )
    from desktop_agent.core.messages import Conversation  # noqa: F401
    from desktop_agent.core.session import ChatSession  # noqa: F401
    from desktop_agent.core.settings import Settings  # noqa: F401
    from desktop_agent.ui import errors as ui_errors  # noqa: F401
    from desktop_agent.ui.agent_runner import AgentRunner, TurnCrashed, TurnEnded, TurnStarted  # noqa: F401
    from desktop_agent.ui.chat.cards import ErrorCard  # noqa: F401
    from desktop_agent.ui.chat.view import ChatView  # noqa: F401
    from desktop_agent.ui.chat_options import ChatOptions  # noqa: F401
    from desktop_agent.ui.errors import ErrorAction  # noqa: F401
    from desktop_agent.ui.folder_offer import FolderOffer  # noqa: F401
    from desktop_agent.ui.model_listing import ModelListing  # noqa: F401
    from desktop_agent.ui.pull import PullController  # noqa: F401

    loaded = dict(locals())
    for name, value in loaded.items():  # a name already set (a test patched it) stays
        globals().setdefault(name, value)

APP_NAME = "desktop-agent"
#: the deferred start-up work runs after the first frame — or after this long, if no frame comes
LATE_INIT_FALLBACK_MS = 2000
#: the height of the chat's options strip (:class:`~desktop_agent.ui.chat_options.ChatOptions`), kept free
#: for it in the first frame (a test keeps them equal)
OPTIONS_STRIP_HEIGHT = 25
APP_DISPLAY_NAME = "Desktop Agent"


class StopQuestion(QMessageBox):
    """"The assistant is still answering. Stop the answer and …?" — asked before an action that would end it."""

    def __init__(self, what: str, parent: QWidget):
        super().__init__(QMessageBox.Icon.Question, "An answer is being written",
                         f"The assistant is still answering. Stop the answer and {what}?",
                         QMessageBox.StandardButton.NoButton, parent)
        self.stop_button = self.addButton(f"Stop and {what}", QMessageBox.ButtonRole.AcceptRole)
        self.addButton("Keep the answer", QMessageBox.ButtonRole.RejectRole)
        self.setDefaultButton(self.stop_button)
        self.setWindowModality(Qt.WindowModality.WindowModal)


class MainWindow(QMainWindow):
    """The desktop window. ``settings``: the effective settings (file + command-line overrides);
    ``saved``: what the settings file holds (picker changes are saved there, overrides are not).

    Staged start (``glance``, :func:`~desktop_agent.ui.application.run_gui`): the window's frame — menus,
    toolbar, the empty chat area, the composer, the tool sidebar, the status bar — is built from a
    :class:`~desktop_agent.core.settings_glance.SettingsGlance` and painted first; the settings are loaded and
    the rest (chat view, options strip, runner, listing…) built right after the first frame
    (:meth:`_build_rest`), then the deferred start-up work runs (:meth:`_late_init`). Without it everything is
    built at once.

    Test hooks: ``assembly`` (an :class:`~desktop_agent.core.assembly.Assembly`), ``store`` (a ConversationStore
    or None to use the default one; pass ``store=False`` for no saving), ``secrets``."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        saved: Settings | None = None,
        warnings: list[str] | None = None,
        assembly: Assembly | None = None,
        store: Any = None,
        secrets: Any = None,
        check_server: bool = True,
        glance: SettingsGlance | None = None,
    ):
        super().__init__()
        if glance is None or settings is not None:
            _import_the_rest()
            glance = None
        #: the settings in use — until a staged window has loaded them, the glance it was started with
        self.settings: Any = settings or glance or Settings()
        self.saved = saved
        self.warnings = list(warnings or [])
        self.store = store
        self.secrets = secrets
        self.check_server_on_start = check_server
        self._given_assembly = assembly
        #: what a staged window was started with (None once the settings are loaded, or when not staged)
        self._glance = glance
        #: True once everything beyond the window's frame is built (at once, or after the first frame)
        self._built = False
        #: the title shown in the window's title bar (from ChatUpdated events and opened chats)
        self._chat_title = ""
        self.history_panel: HistoryPanel | None = None
        self.settings_dialog: SettingsDialog | None = None
        #: the question "stop the answer and …?" while it is open
        self.confirm_stop: StopQuestion | None = None
        self._after_turn: list = []
        self._closing = False
        self._layout_restored = False
        self._shown_once = False

        self.setWindowTitle(APP_DISPLAY_NAME)
        self.setWindowIcon(icons.app_icon())
        self.setObjectName("mainWindow")
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        self.resize(1180, 760)
        self.setMinimumSize(*self.MIN_SIZE)
        self.tasks = TaskRunner(self)

        self._build_central()
        self._build_docks()
        self._build_actions()
        self._build_toolbar()
        self._build_menus()
        self._build_status()
        if store is None:  # the default store opens after the first frame: its history panel's dock is in it
            self._add_history_dock()
        self._restore_state()
        self._set_busy(False)
        self._refresh_backend_labels()
        self.input.setFocus()
        #: True once the deferred start-up work (:meth:`_late_init`) has run; a message sent before waits for it
        self.ready = False
        self._waiting_text = ""
        #: the tool the last message was sent to use (the strip's choice), given back with a message that failed
        self._sent_tool: str | None = None
        self._late_started = False
        if glance is None:
            self._build_rest()
        QTimer.singleShot(LATE_INIT_FALLBACK_MS, self._late_init)  # also when the window is never painted

    # ---- construction ----------------------------------------------------------------------------

    def _build_central(self) -> None:
        """The chat area (an empty stand-in until :meth:`_build_rest` puts the chat view there), the room of
        the chat's options strip and the composer."""
        self.chat = cast("ChatView", QWidget())  # a stand-in of the chat view's size and colour
        self.chat.setObjectName("chatRoom")

        self.composer = Composer()
        self.composer.send_requested.connect(self._send_text)
        self.composer.stop_requested.connect(self.stop)
        self.input = self.composer.input
        self.send_button = self.composer.button

        bottom = QWidget()
        bottom.setObjectName("composerArea")
        bl = QHBoxLayout(bottom)
        bl.setContentsMargins(16, 4, 16, 12)
        bl.addStretch(1)
        column = QVBoxLayout()
        column.setSpacing(6)
        #: keeps the options strip's height until the strip is built, so the composer does not move
        self.options_room = QWidget()
        self.options_room.setFixedHeight(OPTIONS_STRIP_HEIGHT)
        column.addWidget(self.options_room)
        column.addWidget(self.composer)
        self.composer_column = column
        holder = QWidget()
        holder.setMaximumWidth(880)
        holder.setLayout(column)
        column.setContentsMargins(0, 0, 0, 0)
        bl.addWidget(holder, 100)
        bl.addStretch(1)

        central = QWidget()
        central.setObjectName("central")
        lay = QVBoxLayout(central)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.chat, 1)
        lay.addWidget(bottom, 0)
        self.setCentralWidget(central)
        self.central = central
        self._style_central()

    def _style_central(self) -> None:
        th = theme.current()
        self.central.setStyleSheet(
            f"""
            QWidget#central, QWidget#composerArea, QWidget#chatRoom {{ background: {th.base}; }}
            QFrame#composer {{ background: {th.base}; border: 1px solid {th.assistant_border}; border-radius: 14px; }}
            QTextEdit#composeBox {{ background: transparent; color: {th.text}; }}
            QPushButton#sendButton {{ background: {th.accent}; color: {th.accent_text}; border: none;
                                      border-radius: 10px; padding: 7px 14px; font-weight: 600; }}
            QPushButton#sendButton:disabled {{ background: {th.faint}; color: {th.muted}; }}
            QPushButton#sendButton[stop="true"] {{ background: {th.err}; }}
            """
        )

    def _build_docks(self) -> None:
        self.sidebar = ToolSidebar(details_later=True)  # its list and details: in _build_rest
        self.sidebar.setMinimumWidth(200)
        self.tool_dock = QDockWidget("Tool activity", self)
        self.tool_dock.setObjectName("toolDock")
        self.tool_dock.setAccessibleName("Tool activity")
        self.tool_dock.setWidget(self.sidebar)
        self.tool_dock.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.tool_dock)
        self.history_dock: QDockWidget | None = None
        self.dock_fit = DockFitter(self, self.central, min_chat_width=self.MIN_CHAT_WIDTH,
                                   hide_below=self.HIDE_DOCKS_BELOW, shares=self.DOCK_SHARE)
        self.dock_fit.add(self.tool_dock)

    def _action(self, text: str, icon: str | None, shortcut: str | QKeySequence | None, slot, tip: str = "") -> QAction:
        a = QAction(text, self)
        if icon:
            a.setIcon(icons.icon(icon))
        if shortcut:
            a.setShortcut(QKeySequence(shortcut))
            a.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        keys = QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText) if shortcut else ""
        a.setToolTip(f"{tip or text.replace('&', '').rstrip('…')}" + (f" ({keys})" if keys else ""))
        a.triggered.connect(slot)
        return a

    def _build_actions(self) -> None:
        self.new_chat_action = self._action("&New chat", "new-chat", "Ctrl+N", self.new_chat, "Start a new chat")
        self.settings_action = self._action("&Settings…", "settings", "Ctrl+,", self.open_settings, "Settings")
        self.quit_action = self._action("&Quit", "quit", "Ctrl+Q", self.close, "Quit")
        self.focus_action = self._action("Focus the &input", None, "Ctrl+L", self.focus_input)
        self.refresh_action = self._action("Refresh &models", "refresh", "F5", lambda: self.refresh_models(),
                                           "List the server's models again")
        self.stop_action = self._action("&Stop", "stop", None, self.stop, "Stop the answer")
        self.compact_action = self._action("Summarise &earlier messages", None, None, self.compact_chat,
                                           "The model summarises the chat so far; the summary is sent instead")
        self.toggle_tools_action = self.tool_dock.toggleViewAction()
        self.toggle_tools_action.setText("&Tool activity")
        self.toggle_tools_action.setIcon(icons.icon("sidebar"))
        self.toggle_tools_action.setShortcut(QKeySequence("Ctrl+Shift+T"))
        self.toggle_tools_action.setToolTip("Show or hide the tool activity sidebar (Ctrl+Shift+T)")
        for a in (self.new_chat_action, self.settings_action, self.quit_action, self.focus_action,
                  self.refresh_action, self.toggle_tools_action):
            self.addAction(a)
        self.esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop)
        self.esc.setContext(Qt.ShortcutContext.WindowShortcut)

    def _build_toolbar(self) -> None:
        tb = QToolBar("Main toolbar")
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        tb.setIconSize(QSize(18, 18))
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.addAction(self.new_chat_action)
        tb.addSeparator()
        self.picker = ModelPicker()
        self.picker.backend_picked.connect(self._on_backend_picked)
        self.picker.model_picked.connect(self._on_model_picked)
        self.capabilities = ModelCapabilities()
        self.capabilities.anyway_changed.connect(self._on_anyway_changed)
        self.backend_combo = self.picker.backend_combo
        self.model_combo = self.picker.model_combo
        tb.addWidget(self.picker)
        tb.addWidget(self.capabilities)
        tb.addAction(self.refresh_action)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        tb.addSeparator()
        tb.addAction(self.toggle_tools_action)
        tb.addAction(self.settings_action)
        for a in (self.refresh_action,):
            btn = tb.widgetForAction(a)
            if isinstance(btn, QToolButton):
                btn.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.toolbar = tb
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)

    def _build_menus(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        file_menu.addAction(self.new_chat_action)
        file_menu.addSeparator()
        file_menu.addAction(self.settings_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        chat_menu = mb.addMenu("&Chat")
        chat_menu.addAction(self.focus_action)
        chat_menu.addAction(self.stop_action)
        chat_menu.addAction(self.compact_action)
        chat_menu.addAction(self.refresh_action)
        self.view_menu = mb.addMenu("&View")
        self.view_menu.addAction(self.toggle_tools_action)
        help_menu = mb.addMenu("&Help")
        help_menu.addAction(self._action("Open the &log folder", None, None, self._open_log_folder))
        help_menu.addAction(self._action("&About Desktop Agent", None, None, self._about))

    def _build_status(self) -> None:
        sb = self.statusBar()
        sb.setSizeGripEnabled(True)
        self.backend_label = QLabel()
        self.backend_label.setAccessibleName("Backend and model")
        self.server_label = ServerStatus()
        self.server_label.recheck_due.connect(self._recheck)
        self.context_meter = ContextMeter()
        self.context_meter.compact_requested.connect(self.compact_chat)
        sb.addPermanentWidget(self.context_meter)
        sb.addPermanentWidget(self.backend_label)
        sb.addPermanentWidget(self.server_label)

    def _build_rest(self) -> None:
        """Everything beyond the window's frame: the settings (a staged window loads them now), the assembly
        and runner, the chat view, the chat's options strip, the folder offer, the context meter."""
        if self._built:
            return
        self._built = True
        if self._glance is not None:  # a staged start: the settings load now
            _import_the_rest()
            from desktop_agent.core.services import load_settings

            layered = load_settings()
            self.settings, self.saved = layered.effective, layered.saved
            self.warnings.extend(layered.warnings)
            if layered.effective.appearance.theme != self._glance.appearance.theme:
                app = QApplication.instance()
                if isinstance(app, QApplication):
                    theme.apply(app, layered.effective.appearance.theme)
            self._glance = None
        self.session = ChatSession(Conversation(), self.store or None)
        self.assembly = self._given_assembly or Assembly(secrets=self.secrets)
        self.runner = AgentRunner(self.assembly, self)
        self.runner.turn_event.connect(self._on_event)
        self.listing = ModelListing(self.assembly, self.tasks, lambda: self.settings, lambda: self.runner.busy, self)
        self.listing.started.connect(lambda: self.server_label.show_checking())
        self.listing.listed.connect(self._on_models_listed)
        self.listing.facts.connect(self._on_model_facts)
        self.listing.failed.connect(self._on_listing_failed)
        #: pulls an Ollama model (the Settings dialog's Pull)
        self.pull = PullController(self.assembly, self.tasks, self)
        self.mcp_status = McpStatus(self.assembly)  # hidden without MCP servers; a click opens their page
        self.mcp_status.open_requested.connect(lambda: self.open_settings(tab="MCP servers"))
        self.statusBar().addPermanentWidget(self.mcp_status)

        chat = ChatView()
        chat.status_message.connect(lambda t: self.statusBar().showMessage(t, 3000))
        chat.error_action.connect(self._on_error_action)
        chat.suggestion.connect(self._send_text)
        chat.unsent_text.connect(self._give_back_text)
        chat.undo_summary.connect(self._undo_summary)
        chat.tool_clicked.connect(self._show_tool_call)
        chat.frame_interval_changed.connect(self.runner.set_batch_ms)  # one hand-over of streamed text a frame
        central = self.central.layout()
        assert central is not None
        central.replaceWidget(self.chat, chat)
        self.chat.deleteLater()
        self.chat = chat
        self.chat_options = ChatOptions(self.assembly, self.tasks)  # this chat's quick options, above the composer
        self.chat_options.options_changed.connect(self._set_chat_options)
        self.folder_offer = FolderOffer()
        self.folder_offer.folder_chosen.connect(self._allow_folder)
        column = self.composer_column
        column.replaceWidget(self.options_room, self.chat_options)
        self.options_room.deleteLater()
        column.insertWidget(0, self.folder_offer)
        self.sidebar.build_details()
        self.sidebar.cancel_requested.connect(self.runner.cancel_tool_call)
        self.context_meter.show_chat(self.session.id)
        self._refresh_backend_labels()

    # ---- state persistence ------------------------------------------------------------------------

    def qsettings(self) -> QSettings:
        return QSettings(str(paths.config_dir() / "window.ini"), QSettings.Format.IniFormat)

    def _restore_state(self) -> None:
        try:
            qs = self.qsettings()
            geo = qs.value("geometry")
            if isinstance(geo, QByteArray | bytes) and geo:
                self.restoreGeometry(QByteArray(geo))
            state = qs.value("state")
            if isinstance(state, QByteArray | bytes) and state:
                self._layout_restored = self.restoreState(QByteArray(state))
        except Exception:  # a damaged window.ini only loses the window layout
            log.warning("could not restore the window layout", exc_info=True)

    def _save_state(self) -> None:
        try:
            qs = self.qsettings()
            qs.setValue("geometry", self.saveGeometry())
            with self.dock_fit.as_chosen():
                qs.setValue("state", self.saveState())
                if self.history_dock is not None:
                    qs.setValue("history_visible", self.history_dock.isVisible())
            qs.sync()
        except Exception:
            log.warning("could not save the window layout", exc_info=True)

    # ---- late initialisation (after the window is shown) ------------------------------------------

    def _late_init(self) -> None:
        """The start-up work that waits for the window's first frame (see :meth:`showEvent`): the keyring,
        the store and the history panel, the server check; then a message sent meanwhile goes, and markdown
        and highlighting are warmed up."""
        if self._closing or self._late_started:
            return
        self._build_rest()
        self._late_started = True
        QTimer.singleShot(0, self._become_ready)  # right after this work — also if a part of it fails
        if self.secrets is None:
            from desktop_agent.core.secrets import SecretStore  # keyring: after the window shows

            self.secrets = SecretStore()
        if self.assembly.secrets is None:
            self.assembly.secrets = self.secrets
        if self.store is None:
            from desktop_agent.core.store import ConversationStore

            try:
                self.store = ConversationStore()
                self.warnings.extend(self.store.warnings)
            except Exception as exc:  # the chat still works, it just isn't saved
                log.exception("could not open the conversation store")
                self.warnings.append(f"Chats will not be saved: the store could not be opened ({exc}).")
                self.store = False
        if self.store and self.session.store is None:
            self.session.store = self.store
        if self.store:
            self.warnings.extend(keep_rules_in(self.assembly, self.store))  # "always allow" survives a restart
        self._install_history_panel()
        for w in self.warnings:
            self.statusBar().showMessage(w, 15000)
            log.warning(w)
        if self.check_server_on_start:
            self.refresh_models()
        if self.settings.mcp.enabled and self.settings.mcp.servers:  # MCP servers start after the window shows
            settings, assembly = self.settings, self.assembly
            self.tasks.run(lambda _task: assembly.mcp(settings), key="mcp-start")

    def _become_ready(self) -> None:
        """The deferred start-up work has run: a message sent meanwhile goes; markdown is warmed up."""
        self.ready = True
        text, self._waiting_text = self._waiting_text, ""
        if text and not self._closing:
            self._send_text(text)
        QTimer.singleShot(0, self._warm_up_markdown)

    def _warm_up_markdown(self) -> None:
        try:
            from desktop_agent.ui import markdown

            markdown.warm_up()
        except ImportError:
            log.warning("markdown rendering unavailable", exc_info=True)

    def _install_history_panel(self) -> None:
        if not self.store:
            self._drop_history_dock()
            return
        from desktop_agent.ui.history.panel import HistoryPanel

        try:
            panel = HistoryPanel(self.store)
        except Exception:
            log.exception("could not create the history panel")
            self._drop_history_dock()
            return
        self.set_history_panel(panel)

    def _add_history_dock(self) -> None:
        """The left dock for the history panel (View → History, Ctrl+H), empty until the panel is set. A window
        that will open the default store has it in its first frame (then restoreState places it); a dock added
        after the window showed is placed from the saved layout here."""
        dock = QDockWidget("History", self)
        dock.setObjectName("historyDock")
        dock.setAccessibleName("Chat history")
        dock.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
        dock.setWidget(QWidget())
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)
        action = dock.toggleViewAction()
        action.setText("&History")
        action.setIcon(icons.icon("history"))
        action.setShortcut(QKeySequence("Ctrl+H"))
        action.setToolTip("Show or hide the chat history (Ctrl+H)")
        self.addAction(action)
        self.view_menu.insertAction(self.toggle_tools_action, action)
        self.toolbar.insertAction(self.toggle_tools_action, action)
        self.history_dock = dock
        self.history_action = action
        # created after the window showed: restore its place from the saved layout, then show it
        # explicitly unless the user had hidden it (a late dock is not shown by restoreState)
        restored = self._layout_restored and self.restoreDockWidget(dock)
        visible = self.qsettings().value("history_visible", "true")
        dock.setVisible(str(visible).lower() != "false")
        if not restored:
            w = max(200, min(260, int(self.width() * 0.2)))
            self.resizeDocks([dock], [w], Qt.Orientation.Horizontal)
        self.dock_fit.add(dock)
        self._fit_toolbar()
        self.dock_fit.schedule()

    def _drop_history_dock(self) -> None:
        """No history panel after all (the store could not be opened): its empty dock goes."""
        dock, self.history_dock = self.history_dock, None
        if dock is None or self.history_panel is not None:
            self.history_dock = dock
            return
        for holder in (self, self.view_menu, self.toolbar):
            holder.removeAction(self.history_action)
        del self.history_action
        self.dock_fit.remove(dock)
        self.removeDockWidget(dock)
        dock.deleteLater()
        self._fit_toolbar()

    def set_history_panel(self, panel: HistoryPanel) -> None:
        """Put ``panel`` in the left dock (View → History, Ctrl+H) and connect its signals."""
        if self.history_dock is None:
            self._add_history_dock()
        assert self.history_dock is not None
        self.history_dock.setWidget(panel)
        self.history_panel = panel
        panel.conversation_activated.connect(self.open_conversation)
        panel.message_activated.connect(self.open_conversation)
        panel.conversation_deleted.connect(self._on_conversation_deleted)
        panel.conversation_renamed.connect(self._on_conversation_renamed)
        panel.status_message.connect(lambda t: self.statusBar().showMessage(t, 6000))

    # ---- settings and pickers ---------------------------------------------------------------------

    def _refresh_backend_labels(self) -> None:
        s = self.settings
        self.picker.show_choice(s)
        if self._built:
            self._show_chat_options()
        where = s.ollama.host if s.backend == "ollama" else s.openai.base_url
        label = dict(BACKENDS)[s.backend]
        self.backend_label.setText(f"{label} · {s.model}")
        self.backend_label.setToolTip(f"{label} at {where}, model {s.model}")

    def _show_chat_options(self) -> None:
        """The strip shows the chat's options over the settings; the empty chat's hints follow its tools."""
        self.chat_options.show_options(self.settings, self.conversation.options)
        self.chat.set_tools_offered(self.session.effective(self.settings).tools.enabled)

    def _set_chat_options(self, options: dict[str, Any]) -> None:
        """The user changed the chat's options: used from its next turn, saved with it (a new chat's are
        saved with its first message)."""
        self.conversation.options = options
        self.chat.set_tools_offered(self.session.effective(self.settings).tools.enabled)
        if self.store:
            try:
                self.store.set_options(self.conversation.id, options)
            except StoreError as exc:
                self.statusBar().showMessage(f"Could not save this chat's options: {exc}", 8000)

    def _update_settings(self, changes: dict[str, Any]) -> None:
        """Change settings for the next turn and save the same change to the settings file (command-line
        overrides stay out of the file)."""
        self.settings = self.settings.updated(changes)
        if self.saved is not None:
            self.saved = self.saved.updated(changes)
            try:
                self.saved.save()
            except OSError as exc:
                self.statusBar().showMessage(f"Could not save settings: {exc}", 8000)
        self._refresh_backend_labels()

    def _allow_folder(self, folder: str) -> None:
        """The folder offer's choice: file and command tools may use ``folder`` from the next call on."""
        folders = list(self.settings.tools.allowed_folders)
        if folder not in folders:
            self._update_settings({"tools.allowed_folders": [*folders, folder]})
        self.statusBar().showMessage(f"File and command tools may use {folder} (Settings → Tools lists the "
                                     "folders). Ask again.", 8000)

    def _on_backend_picked(self, key: str) -> None:
        if key != self.settings.backend:
            self._update_settings({"backend": key})
            self.picker.clear_models(self.settings.model)
            self.refresh_models()

    def _on_model_picked(self, name: str) -> None:
        name = name.strip()
        if not name or name == self.settings.model:
            return
        self._update_settings({self.settings.model_field: name})
        self.statusBar().showMessage(f"Model: {name} (from the next message)", 4000)
        self._show_capabilities()

    def _on_model_facts(self, facts: dict) -> None:
        self.capabilities.set_facts(facts)
        self.chat_options.set_model_facts(facts)
        self._show_capabilities()

    def _show_capabilities(self) -> None:
        m = self.settings.models
        self.capabilities.show_model(self.settings.model, m.tools_anyway, m.think_anyway)

    def _on_anyway_changed(self, what: str, model: str, on: bool) -> None:
        key = "models.tools_anyway" if what == "tools" else "models.think_anyway"
        names = [n for n in self.settings.get(key) if n != model] + ([model] if on else [])
        self._update_settings({key: names})
        self._show_capabilities()

    def apply_settings(self, settings: Settings) -> None:
        """New saved settings (from the dialog): layered again with the environment (one layering, in
        core.assembly) and used from the next turn on; a new theme at once."""
        from desktop_agent.core.services import layer

        if settings.appearance.theme != self.settings.appearance.theme:
            app = QApplication.instance()
            if isinstance(app, QApplication):
                theme.apply(app, settings.appearance.theme)
        mcp_before = self.settings.mcp
        self.settings = layer(settings).effective
        self.saved = settings
        if self.settings.mcp != mcp_before and self.ready:  # servers added, changed or removed: (re)start them now
            effective, assembly = self.settings, self.assembly
            self.tasks.run(lambda _task: assembly.mcp(effective), key="mcp-start")
        self._refresh_backend_labels()
        self.refresh_models()

    def open_settings(self, tab: str = "") -> None:
        """Open the settings dialog (window-modal, non-blocking) — at the page titled ``tab``, if given; saved
        settings apply from the next turn."""
        from desktop_agent.ui.settings.dialog import SettingsDialog  # after the window shows

        if self.settings_dialog is not None:
            self.settings_dialog.raise_()
            self.settings_dialog.activateWindow()
            self.settings_dialog.show_page(tab)
            return
        saved_host = (self.saved or self.settings).ollama.host
        dlg = SettingsDialog(self._settings_for_dialog(), self.secrets, self, assembly=self.assembly, pull=self.pull,
                             file_host=saved_host if saved_host != self.settings.ollama.host else None)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.settings_saved.connect(self._on_settings_saved)
        dlg.tools_page.learned_changed.connect(self.chat_options.refresh)  # a Forget applies at once
        dlg.destroyed.connect(lambda *_: setattr(self, "settings_dialog", None))
        self.settings_dialog = dlg
        dlg.show_page(tab)
        dlg.open()

    def _settings_for_dialog(self) -> Settings:
        """What the dialog edits: the saved settings, but with the Ollama host in use — with
        ``OLLAMA_HOST`` set, the saved host is not the one the window talks to, and testing it would
        report a failure while chats work (the dialog says where the host comes from)."""
        base = self.saved or self.settings
        if base.ollama.host != self.settings.ollama.host:
            base = base.updated({"ollama.host": self.settings.ollama.host})
        return base

    def _on_settings_saved(self, settings: Settings) -> None:
        self.apply_settings(settings)
        self.statusBar().showMessage("Settings saved; they apply from the next message.", 5000)

    # ---- models and the server status (background) ------------------------------------------------

    def refresh_models(self, then=None) -> None:
        """List the server's models in the background (see :mod:`desktop_agent.ui.model_listing`); ``then``
        runs on the GUI thread once the listing has ended, whether it worked or not."""
        if not self._closing:
            self.listing.refresh(then)

    def _on_models_listed(self, models: list[str], version: str) -> None:
        current = self.settings.model
        if current not in models and f"{current}:latest" in models:
            # Ollama's name for the same model: use it everywhere (picker, status bar, answers) for
            # this session, so the window never shows two names for one model; the file is unchanged
            current = f"{current}:latest"
            self.settings = self.settings.updated({self.settings.model_field: current})
        self.picker.fill(models, current)
        self.server_label.show_online(version)
        self._refresh_backend_labels()

    def _on_listing_failed(self, error: BaseException) -> None:
        self.server_label.show_problem(ui_errors.status_label(error), ui_errors.one_line(error))

    def _recheck(self) -> None:
        if not self._closing and not self.runner.busy:
            self.refresh_models()

    # ---- turns ------------------------------------------------------------------------------------

    def _set_busy(self, busy: bool) -> None:
        if not self._built:  # nothing runs before the rest is built
            busy = False
        self.composer.set_busy(busy)
        self.stop_action.setEnabled(busy)
        self.compact_action.setEnabled(not busy)

    @property
    def busy(self) -> bool:
        return self._built and self.runner.busy

    def _send_text(self, text: str) -> None:
        if not self.ready and text.strip():  # the store and the keys are not there yet: it goes in a moment
            self._waiting_text = text
            self.input.clear()
            self.statusBar().showMessage("Starting up — your message is sent in a moment…", 3000)
            return
        if self.busy:
            self.statusBar().showMessage("Wait for the answer, or press Stop (Esc).", 3000)
            return
        if not text.strip():
            return
        tokens = oversized(text, self.settings.loop.system_prompt, self.context_meter.window_tokens())
        if tokens is not None and not confirm_oversized(self, tokens, self.context_meter.window_tokens() or 0):
            return
        self.input.clear()
        self._start(text)

    def _give_back_text(self, text: str) -> None:
        """A turn failed before the message joined the chat: put it back for another try (with the tool chosen
        for it)."""
        if not self.input.toPlainText().strip():
            self.input.setPlainText(text)
            if self._sent_tool and self.chat_options.next_tool is None:
                self.chat_options.set_next_tool(self._sent_tool)

    def send(self, text: str) -> None:
        """Send ``text`` as if typed (used by tests and the suggestions)."""
        self._send_text(text)

    def retry(self) -> None:
        """Run the turn again from the saved history (after an error)."""
        if not self.busy:
            self._start(None)

    @property
    def conversation(self) -> Conversation:
        """The chat on screen."""
        return self.session.conversation

    def _show_session(self, conversation: Conversation) -> None:
        self.session = ChatSession(conversation, self.store or None)
        self._chat_title = conversation.title or (conversation.default_title() if conversation.messages else "")
        self.chat_options.set_next_tool(None)  # a tool chosen for the next message was for the other chat
        self._show_chat_options()
        self.context_meter.show_chat(conversation.id)
        if self.history_panel is not None:  # the list highlights the chat on screen, or nothing for a new one
            self.history_panel.show_current(conversation.id if conversation.messages else None)

    def _start(self, text: str | None) -> None:
        self.chat.live_model = self.settings.model
        settings = self.settings
        chosen = self.chat_options.take_next_tool() if text is not None else None
        if chosen:  # the strip's "Use this tool for the next message": this one turn only
            settings = settings.updated({"loop.tool_choice": chosen})
        self._sent_tool = chosen
        self.runner.start_turn(self.session, text, settings)

    def compact_chat(self) -> None:
        """Summarise the chat's earlier messages (the model writes the summary; it is sent instead of them)."""
        if self.busy:
            self.statusBar().showMessage("Wait for the answer, or press Stop (Esc).", 3000)
            return
        self.runner.start_turn(self.session, None, self.settings, compact=True)

    def _undo_summary(self, summary: object) -> None:
        if self.busy:
            self.statusBar().showMessage("Wait for the answer, or press Stop (Esc).", 3000)
            return
        try:
            self._on_event(self.session.undo_compaction(summary))  # type: ignore[arg-type]
        except StoreError as exc:
            self.statusBar().showMessage(f"Could not undo the summary: {exc}", 8000)
            return
        self.statusBar().showMessage("Summary undone: the earlier messages are sent again.", 5000)

    def stop(self) -> None:
        if self.busy:
            self.runner.stop()
            self.statusBar().showMessage("Stopping…", 2000)

    def _on_event(self, ev: object) -> None:
        self.chat.handle(ev)
        self.sidebar.handle(ev)
        self.folder_offer.handle(ev)
        if isinstance(ev, TurnStarted):
            self._set_busy(True)
        elif isinstance(ev, Notice):
            self.statusBar().showMessage(ev.text, 8000)
        elif isinstance(ev, ContextUsage):
            self.context_meter.note((self.runner.session or self.session).id, ev)
        elif isinstance(ev, ChatUpdated):
            if ev.conversation_id == self.session.id:
                self._chat_title = ev.title
                self._update_title()
            if self.history_panel is not None and self.store:
                # the chat is saved from its first message on: it is in the list from then, highlighted
                self.history_panel.note_saved(ev.conversation_id)
                if ev.conversation_id == self.session.id:
                    self.history_panel.show_current(ev.conversation_id)
        elif isinstance(ev, AnswerFinished):
            if self.server_label.ok is not True:
                # the server answers again (or its key works now): list its models and version
                self.server_label.show_online()
                if not self._closing:
                    self.refresh_models()  # the turn is still running: this listing waits for its end
        elif isinstance(ev, TurnFailed):
            self.statusBar().clearMessage()  # a "retrying in 1 s" notice is over: the card says how it ended
            if isinstance(ev.error, BackendUnreachable | AuthenticationFailed | NoApiKey | KeyringLocked):
                self.server_label.show_problem(ui_errors.status_label(ev.error), str(ev.error))
            elif ui_errors.describe(ev.error).unexpected:
                cause = ui_errors.unexpected_cause(ev.error)
                ui_errors.report_unexpected(cause, "the agent", cause.__traceback__)
        elif isinstance(ev, TurnCancelled):
            self.statusBar().showMessage("Stopped. The partial answer is kept.", 4000)
        elif isinstance(ev, TurnCrashed):
            ui_errors.report_unexpected(ev.error, "the agent", ev.error.__traceback__)
        elif isinstance(ev, TurnEnded):
            self._set_busy(False)
            self.chat_options.refresh()  # the turn may have learned that the model answers nothing with tools
            if self.confirm_stop is not None:  # the answer ended while "stop it?" was asked: nothing to stop
                self.confirm_stop.stop_button.click()
            self._refresh_history()
            pending, self._after_turn = self._after_turn, []
            for fn in pending:
                fn()
            self.listing.turn_ended()
            if not self.busy and not self._closing:
                self.input.setFocus()

    def _update_title(self) -> None:
        title = self._chat_title
        self.setWindowTitle(f"{title} — {APP_DISPLAY_NAME}" if title and title != "New chat" else APP_DISPLAY_NAME)

    def _refresh_history(self) -> None:
        """After a turn: the panel lists the saved chat, with the one shown selected."""
        panel = self.history_panel
        if panel is None:
            return
        try:
            panel.refresh()
            panel.show_current(self.conversation.id if self.conversation.messages else None)
        except Exception:  # the panel failing must not break the chat
            log.exception("history panel refresh failed")

    def _when_idle(self, fn, what: str = "go on", *, ask: bool = True) -> None:
        """Run ``fn`` now, or — when an answer is being written — ask first: stop it and run ``fn`` once the
        turn has ended, or keep the answer going. An answer is never stopped without the user saying so
        (``ask=False``: they already did, e.g. by deleting the chat it is written into)."""
        if not self.busy:
            fn()
            return
        if not ask:
            self._after_turn.append(fn)
            self.runner.stop()
            return
        if self.confirm_stop is not None:
            self.confirm_stop.close()
        box = StopQuestion(what, self)
        stop = box.stop_button

        def answered(button) -> None:
            self.confirm_stop = None
            if button is stop and self.busy:
                self._after_turn.append(fn)
                self.runner.stop()
            elif button is stop:
                fn()

        box.buttonClicked.connect(answered)
        box.finished.connect(lambda _r: setattr(self, "confirm_stop", None))
        self.confirm_stop = box
        box.open()

    # ---- chats ------------------------------------------------------------------------------------

    def new_chat(self, *, ask: bool = True) -> None:
        def go():
            self._show_session(Conversation())
            self.chat.clear()
            self.sidebar.clear()
            self._update_title()
            self.input.setFocus()

        self._when_idle(go, "start a new chat", ask=ask)

    def open_conversation(self, conversation_id: str, message_id: int | None = None) -> None:
        """Load a saved chat (from the history panel); ``message_id``: scroll to that message (a
        search hit). A running turn is stopped first."""

        def go():
            if not self.store:
                return
            try:
                conv = self.store.load(conversation_id)
            except Exception as exc:
                log.exception("could not open chat %s", conversation_id)
                self.statusBar().showMessage(f"Could not open the chat: {exc}", 8000)
                return
            self._show_session(conv)
            self.chat.set_conversation(conv)
            self.sidebar.load(conv, audited_decisions(self.store, conv.id))
            self._update_title()
            if message_id is not None:
                self.chat.scroll_to_message(message_id)

        self._when_idle(go, "open that chat")

    def _on_conversation_renamed(self, conversation_id: str, title: str) -> None:
        if conversation_id == self.conversation.id and not self.busy:
            self.conversation.title = title
            self._chat_title = title
            self._update_title()

    def _on_conversation_deleted(self, conversation_id: str) -> None:
        if conversation_id == self.conversation.id:
            self.new_chat(ask=False)  # the user chose to delete it: stopping its answer goes with that

    def _show_tool_call(self, call_id: str) -> None:
        self.tool_dock.show()
        self.tool_dock.raise_()
        self.sidebar.select_call(call_id)

    # ---- error actions ----------------------------------------------------------------------------

    def _on_error_action(self, action: ErrorAction, card: ErrorCard) -> None:
        kind = action.kind
        if kind == ui_errors.RETRY:
            self.retry()
        elif kind == ui_errors.OPEN_SETTINGS:
            self.open_settings()
        elif kind == ui_errors.NEW_CHAT:
            self.new_chat()
        elif kind == ui_errors.USE_MODEL:
            self._update_settings({self.settings.model_field: action.payload})
            self.retry()
        elif kind == ui_errors.PULL_MODEL:
            self.pull_model(action.payload, card)
        elif kind == ui_errors.OPEN_DATA_FOLDER:
            self._open_folder(paths.data_dir())

    def pull_model(self, name: str, card: ErrorCard | None = None) -> None:
        """``ollama pull`` through the window's one pull controller, with progress and Cancel on the error
        card; the turn is retried when the model is there — if its chat is still the one shown."""
        if not self.pull.start(self.settings, name):
            self.statusBar().showMessage(f"Another model is being pulled ({self.pull.model}).", 5000)
            return
        chat_id = self.session.id
        shown: list[ErrorCard] = [card] if card is not None else []  # emptied when the card goes away
        if card is not None:
            card.destroyed.connect(lambda *_: shown.clear())
        connections: list[Any] = []

        def progress(status: str, done: int | None, total: int | None) -> None:
            for c in shown:
                pct = f" {100 * (done or 0) / total:.0f}%" if total else ""
                c.set_progress(f"{status}{pct}", done, total)

        def end(text: str, then: Any = None) -> None:
            for signal, slot in connections:
                signal.disconnect(slot)
            for c in shown:
                c.set_busy(False)
            self.statusBar().showMessage(text, 8000)
            if then is not None:
                then()

        def finished(model: str) -> None:
            def retry() -> None:
                self._update_settings({"ollama.model": model})
                if self.session.id == chat_id and shown:
                    # list the models first: the retried turn then uses the name the server lists
                    # ("name:latest"), the one the picker and the status bar show
                    self.refresh_models(then=self.retry)

            end(f"Pulled {model}.", retry)

        for signal, slot in ((self.pull.progress, progress), (self.pull.finished, finished),
                             (self.pull.failed, lambda text: end(f"Pull failed: {text}")),
                             (self.pull.cancelled, lambda: end(f"Stopped pulling {name}."))):
            signal.connect(slot)
            connections.append((signal, slot))
        if card is not None:
            card.set_busy(True)
            card.set_progress(f"Pulling {name}…")
            card.cancel_requested.connect(self.pull.cancel)

    # ---- misc -------------------------------------------------------------------------------------

    def focus_input(self) -> None:
        self.input.setFocus()
        self.input.selectAll()

    def _open_log_folder(self) -> None:
        self._open_folder(paths.log_dir())

    def _open_folder(self, folder) -> None:
        from PySide6.QtCore import QUrl
        from PySide6.QtGui import QDesktopServices

        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    def _about(self) -> None:
        from desktop_agent import __version__

        QMessageBox.about(
            self,
            f"About {APP_DISPLAY_NAME}",
            f"<b>{APP_DISPLAY_NAME}</b> {__version__}<br>A desktop assistant for Ollama and "
            f"OpenAI-compatible servers, with tools.<br><br>Log file: {paths.log_file()}",
        )

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        from PySide6.QtCore import QEvent

        if event.type() == QEvent.Type.PaletteChange and not self._closing:
            icons.clear_cache()
            QTimer.singleShot(0, self._restyle)

    def _restyle(self) -> None:
        self._style_central()
        self._set_busy(self.busy)
        self.sidebar.restyle()
        if self._built:
            self.chat_options.restyle()
            self.chat.restyle()
            self.mcp_status.refresh()
        self.server_label.restyle()
        for a, name in ((self.new_chat_action, "new-chat"), (self.settings_action, "settings"),
                        (self.quit_action, "quit"), (self.refresh_action, "refresh"),
                        (self.stop_action, "stop"), (self.toggle_tools_action, "sidebar")):
            a.setIcon(icons.icon(name))

    # ---- closing ----------------------------------------------------------------------------------

    def shutdown(self) -> bool:
        """Stop background work: cancel the turn (its partial answer is saved as interrupted), wait for
        the worker (≤ 2.5 s, never terminate), stop pulls, close the store. Idempotent."""
        if self._closing:
            return True
        self._closing = True
        if not self._built:  # closed before the first frame's rest was built: only the layout to keep
            self._save_state()
            return True
        self.listing.closed = True
        self.pull.cancel()
        self._save_state()
        clean = self.runner.shutdown(2.5)
        self.tasks.close()
        if clean and self.store:
            try:
                self.store.close()
            except Exception:
                log.warning("closing the store failed", exc_info=True)
        return clean

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            # paint first, then the rest: built at once (no input event comes in between), then the deferred work
            after_first_frame(self, self._build_rest)
            after_first_frame(self, lambda: QTimer.singleShot(0, self._late_init))
            if not self._layout_restored:  # first start: the sidebar takes about 30 % of the width
                w = max(240, min(340, int(self.width() * 0.27)))
                self.resizeDocks([self.tool_dock], [w], Qt.Orientation.Horizontal)
            self._fit_toolbar()
            self.dock_fit.schedule()  # a layout restored from a larger screen

    #: the smallest window: the toolbar fits (icons only) beside the model picker, the chat keeps its width
    MIN_SIZE = (600, 440)
    #: below this chat width the side docks shrink to their share of the window
    MIN_CHAT_WIDTH = 440
    #: a dock hides rather than leave the chat narrower than this
    HIDE_DOCKS_BELOW = 360
    #: the share of the window each side dock keeps when the window is narrow
    DOCK_SHARE: ClassVar[dict[str, float]] = {"historyDock": 0.22, "toolDock": 0.27}

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._shown_once and not self._closing:
            self._fit_toolbar()
            self.dock_fit.schedule()

    def _fit_toolbar(self) -> None:
        """Toolbar buttons show their text when everything fits, only their icon (the text stays
        in the tooltip and the accessible name) when the window is too narrow — rather than hiding
        Settings behind the overflow arrow."""
        tb = getattr(self, "toolbar", None)
        if tb is None:
            return
        actions = [a for a in (self.new_chat_action, getattr(self, "history_action", None),
                               self.toggle_tools_action, self.settings_action) if a is not None]
        buttons = [b for b in (tb.widgetForAction(a) for a in actions) if b is not None]
        for b in buttons:
            b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        if tb.sizeHint().width() > self.width():
            for b in buttons:
                b.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        event.accept()
        super().closeEvent(event)
