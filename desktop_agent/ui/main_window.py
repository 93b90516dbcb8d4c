"""The main window: widgets and their connections — what it shows, not what it does.

Layout: the chat (:class:`~desktop_agent.ui.chat.view.ChatView`), the chat's quick options
(:class:`~desktop_agent.ui.chat_options.ChatOptions`) and the composer in the centre; the tool-activity sidebar
as a right dock (View → Tool activity, Ctrl+Shift+T); the history panel as a left dock; a toolbar with New chat
(Ctrl+N), backend and model pickers and Settings (Ctrl+,); a status bar with backend, model and whether the
server answers.

What it does — the core objects, the turns, the chats, the models — is the
:class:`~desktop_agent.ui.controller.ChatController`'s: the window passes the user's wishes on and follows its
signals; the widgets that show a turn's events get them from the controller's one event table. How it starts is
:mod:`desktop_agent.ui.startup`'s ordered list of stages: the frame first (PySide6 and light modules only), the
rest after it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar, cast

from PySide6.QtCore import QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QDockWidget, QLabel, QMainWindow

from desktop_agent.core import paths
from desktop_agent.ui import icons, mcp_bundle, theme
from desktop_agent.ui.accessibility import AnswerAnnouncer, FocusRing, arrange_tab_order
from desktop_agent.ui.chat.context_meter import ContextMeter, confirm_oversized, oversized
from desktop_agent.ui.compose import ComposeArea, StopQuestion
from desktop_agent.ui.dock_fit import DockFitter
from desktop_agent.ui.first_frame import after_first_frame
from desktop_agent.ui.help import open_folder
from desktop_agent.ui.history.dock import HistoryDock
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.model_picker import BACKENDS
from desktop_agent.ui.server_status import ServerStatus
from desktop_agent.ui.startup import WARM_UP, SettingsAhead, Stage, Startup, load_layered, store_ahead
from desktop_agent.ui.status_line import StatusBar
from desktop_agent.ui.tool_sidebar import ToolSidebar
from desktop_agent.ui.toolbar import MainToolbar, build_menus, make_action
from desktop_agent.ui.window_state import reopen_last_chat, restore_layout, save_layout, save_place

if TYPE_CHECKING:  # the types of what the stages after the first frame build
    from desktop_agent.core.services import Services
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.settings_glance import SettingsGlance
    from desktop_agent.ui.chat.view import ChatView
    from desktop_agent.ui.chat_options import ChatOptions
    from desktop_agent.ui.controller import ChatController
    from desktop_agent.ui.folder_offer import FolderOffer
    from desktop_agent.ui.history.panel import HistoryPanel
    from desktop_agent.ui.mcp_status import McpStatus
    from desktop_agent.ui.settings.dialog import SettingsDialog
    from desktop_agent.ui.tray import AppTray

log = logging.getLogger(__name__)

APP_NAME = "desktop-agent"
APP_DISPLAY_NAME = "Desktop Agent"


class MainWindow(QMainWindow):
    """The desktop window. ``settings``: the effective settings (file + command-line overrides); ``saved``: what
    the settings file holds. Started from a ``glance`` at the settings file (:func:`~desktop_agent.ui.application
    .run_gui`) it paints its frame before the settings are loaded; given ``settings`` it builds its services at
    once. Test hooks, handed to the controller: ``assembly``, ``store`` (None: the default one; ``False``: nothing
    is saved), ``secrets``; ``check_server=False``: no server check at start."""

    #: the palette changed (a theme switched live): every widget restyles from this one signal
    restyle = Signal()
    #: the window is closing for good (the app quits with it): what lives with it closes too
    closing = Signal()

    #: the smallest window: the toolbar fits (icons only) beside the model picker, the chat keeps its width
    MIN_SIZE = (600, 440)
    #: below this chat width the side docks shrink to their share of the window
    MIN_CHAT_WIDTH = 440
    #: a dock hides rather than leave the chat narrower than this
    HIDE_DOCKS_BELOW = 360
    #: the share of the window each side dock keeps when the window is narrow
    DOCK_SHARE: ClassVar[dict[str, float]] = {"historyDock": 0.22, "toolDock": 0.27}

    def __init__(self, settings: Settings | None = None, *, saved: Settings | None = None,
                 warnings: list[str] | None = None, assembly: Any = None, store: Any = None, secrets: Any = None,
                 check_server: bool = True, glance: SettingsGlance | None = None, services: Services | None = None):
        super().__init__()
        staged = glance is not None and settings is None
        self._glance = glance if staged else None
        if not staged and settings is None:
            from desktop_agent.core.settings import Settings

            settings = Settings()
        self._given: dict[str, Any] = {"settings": settings, "saved": saved, "warnings": list(warnings or []),
                                       "assembly": assembly, "store": store, "secrets": secrets,
                                       "services": services}
        self.check_server_on_start = check_server
        self.controller: ChatController | None = None
        self.tray: AppTray | None = None
        self.settings_dialog: SettingsDialog | None = None
        #: the question "stop the answer and …?" while it is open
        self.confirm_stop: StopQuestion | None = None
        #: a message sent before the window was ready: it goes once it is
        self.waiting_text = ""
        self._closing = False
        self._shown_once = False
        self._layout_restored = False

        self.setWindowTitle(APP_DISPLAY_NAME)
        self.setWindowIcon(icons.app_icon())
        self.setObjectName("mainWindow")
        self.setDockOptions(QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks)
        self.resize(1180, 760)
        self.setMinimumSize(*self.MIN_SIZE)
        self._build_central()
        self._build_docks()
        self._build_actions()
        self._build_status()
        self.history = HistoryDock(self, self.view_menu, self.toolbar, self.toggle_tools_action, self.dock_fit,
                                   fitted=self._fit_toolbar, restored=lambda: self._layout_restored,
                                   visible=lambda: self.qsettings().value("history_visible", "true"))
        self.restyle.connect(self.history.restyle_icon)
        if store is None:  # the default store opens after the first frame: its history panel's dock is in it
            self.history.add()
        self._layout_restored = restore_layout(self, self.qsettings())
        self._set_busy(False)
        self._refresh_backend_labels()
        self.focus_ring = FocusRing(self)  # where the keyboard focus is, visible in both themes
        self.input.setFocus()
        self.restyle.connect(self._restyle_frame)

        self._ahead = SettingsAhead(lambda: self._glance is not None and self._given["services"] is None)
        self.startup = Startup([  # (a stage's background: its non-Qt work, off the GUI thread before it)
            Stage("settings", self._load_settings, background=self._ahead),
            Stage("services", self._open_services, together=True),  # nothing may act on half of them
            Stage("store and history", self._open_store, background=store_ahead),
            Stage("last chat", self._reopen_last_chat),
            Stage("server check", self._check_server),
            WARM_UP], self)
        if not staged:
            self.startup.run_through("services")
        self.startup.start_later()  # also when the window is never painted

    # ---- what the controller holds, for the window's users ---------------------------------------

    def _core(self, name: str) -> Any:
        return getattr(self.controller, name) if self.controller is not None else self._given[name]

    settings = property(lambda self: self.controller.settings if self.controller else self._glance or
                        self._given["settings"], doc="the settings in use (a glance until they are loaded)")
    saved = property(lambda self: self._core("saved"))
    warnings = property(lambda self: self._core("warnings"))
    store = property(lambda self: self._core("store"))
    secrets = property(lambda self: self._core("secrets"))
    assembly = property(lambda self: self._core("assembly"))
    runner = property(lambda self: self._ctl.runner)
    session = property(lambda self: self._ctl.session)
    listing = property(lambda self: self._ctl.listing)
    pull = property(lambda self: self._ctl.pull)
    conversation = property(lambda self: self._ctl.conversation, doc="the chat on screen")

    @property
    def _ctl(self) -> ChatController:
        assert self.controller is not None, "the window's services are not built yet"
        return self.controller

    @property
    def built(self) -> bool:
        """Everything beyond the window's frame is built (at once, or after the first frame)."""
        return self.controller is not None

    @property
    def ready(self) -> bool:
        """The start-up work has run up to the server check: a message sent before waits for it."""
        return self.startup.reached("server check")

    @property
    def busy(self) -> bool:
        return self.controller is not None and self.controller.busy

    # ---- the frame (before the first paint: PySide6 and light modules only) ----------------------

    def _build_central(self) -> None:
        self.compose_area = ComposeArea(self)
        self.chat = cast("ChatView", self.compose_area.chat)  # a stand-in until the chat view is built
        self.composer = self.compose_area.composer
        self.composer.send_requested.connect(self._send_text)
        self.composer.stop_requested.connect(self.stop)
        self.composer.recall_requested.connect(self._recall_last_message)
        self.input = self.composer.input
        self.send_button = self.composer.button
        self.central = self.compose_area
        self.setCentralWidget(self.compose_area)
        self.restyle.connect(self.compose_area.restyle)

    def _build_docks(self) -> None:
        self.sidebar = ToolSidebar(details_later=True)  # its list and details: with the services
        self.sidebar.setMinimumWidth(200)
        self.tool_dock = QDockWidget(translate("MainWindow", "Tool activity"), self)
        self.tool_dock.setObjectName("toolDock")
        self.tool_dock.setAccessibleName(translate("MainWindow", "Tool activity"))
        self.tool_dock.setWidget(self.sidebar)
        self.tool_dock.setAllowedAreas(Qt.DockWidgetArea.LeftDockWidgetArea | Qt.DockWidgetArea.RightDockWidgetArea)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.tool_dock)
        self.dock_fit = DockFitter(self, self.central, min_chat_width=self.MIN_CHAT_WIDTH,
                                   hide_below=self.HIDE_DOCKS_BELOW, shares=self.DOCK_SHARE)
        self.dock_fit.add(self.tool_dock)
        self.restyle.connect(self.sidebar.restyle)

    def _action(self, text: str, icon: str | None, shortcut: str | None, slot, tip: str = "") -> QAction:
        return make_action(self, text, icon, shortcut, slot, tip, self.restyle)

    def _build_actions(self) -> None:
        self.new_chat_action = self._action(translate("MainWindow", "&New chat"), "new-chat", "Ctrl+N",
                                            self.new_chat, translate("MainWindow", "Start a new chat"))
        self.settings_action = self._action(translate("MainWindow", "&Settings…"), "settings", "Ctrl+,",
                                            self.open_settings, translate("MainWindow", "Settings"))
        self.quit_action = self._action(translate("MainWindow", "&Quit"), "quit", "Ctrl+Q",
                                        self.quit, translate("MainWindow", "Quit"))
        self.focus_action = self._action(translate("MainWindow", "Focus the &input"), None, "Ctrl+L", self.focus_input)
        self.refresh_action = self._action(translate("MainWindow", "Refresh &models"), "refresh", "F5",
                                           lambda: self.refresh_models(),
                                           translate("MainWindow", "List the server's models again"))
        self.stop_action = self._action(translate("MainWindow", "&Stop"), "stop", None, self.stop,
                                        translate("MainWindow", "Stop the answer"))
        self.compact_action = self._action(translate("MainWindow", "Summarise &earlier messages"), None, None,
                                           self.compact_chat, translate("MainWindow", "The model summarises the "
                                                                        "chat so far; the summary is sent instead"))
        self.toggle_tools_action = self.tool_dock.toggleViewAction()
        self.toggle_tools_action.setText(translate("MainWindow", "&Tool activity"))
        self.toggle_tools_action.setIcon(icons.icon("sidebar"))
        self.restyle.connect(lambda: self.toggle_tools_action.setIcon(icons.icon("sidebar")))
        self.toggle_tools_action.setShortcut(QKeySequence("Ctrl+Shift+T"))
        self.toggle_tools_action.setToolTip(translate("MainWindow",
                "Show or hide the tool activity sidebar (Ctrl+Shift+T)"))
        self.toggle_tools_action.setWhatsThis(self.tr("Show or hide the tool activity sidebar"))
        for a in (self.new_chat_action, self.settings_action, self.quit_action, self.focus_action,
                  self.refresh_action, self.toggle_tools_action):
            self.addAction(a)
        self.esc = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop)
        self.esc.setContext(Qt.ShortcutContext.WindowShortcut)
        self.esc.setWhatsThis(self.tr("Stop the answer"))
        self.toolbar = MainToolbar(self.new_chat_action, self.refresh_action, self.toggle_tools_action,
                                   self.settings_action)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        self.picker, self.capabilities = self.toolbar.picker, self.toolbar.capabilities
        self.backend_combo, self.model_combo = self.picker.backend_combo, self.picker.model_combo
        self.picker.backend_picked.connect(self._on_backend_picked)
        self.picker.model_picked.connect(self._on_model_picked)
        self.capabilities.anyway_changed.connect(lambda *a: self._ctl.use_anyway(*a))
        self.view_menu = build_menus(
            self, [self.new_chat_action, None, self.settings_action, None, self.quit_action],
            [self.focus_action, self.stop_action, self.compact_action, self.refresh_action],
            [self.toggle_tools_action],
            [self._action(translate("MainWindow", "&Keyboard shortcuts"), None, "Ctrl+/", self.show_shortcuts),
             self._action(translate("MainWindow", "Open the &log folder"), None, None,
                          lambda: open_folder(paths.log_dir())),
             self._action(translate("MainWindow", "&About Desktop Agent"), None, None, self._about)])

    def _build_status(self) -> None:
        sb = StatusBar(self)  # messages elided beside the permanent widgets, never under them
        self.setStatusBar(sb)
        sb.setSizeGripEnabled(True)
        self.backend_label = QLabel()
        self.backend_label.setAccessibleName(translate("MainWindow", "Backend and model"))
        self.server_label = ServerStatus()
        self.server_label.recheck_due.connect(self._recheck)
        self.context_meter = ContextMeter()
        self.context_meter.compact_requested.connect(self.compact_chat)
        for w in (self.context_meter, self.backend_label, self.server_label):
            sb.addPermanentWidget(w)
        self.restyle.connect(self.server_label.restyle)

    # ---- the stages after the first frame (see desktop_agent.ui.startup) -------------------------

    def _load_settings(self) -> None:
        """A window started from a glance loads its settings (layered with the environment) now."""
        if self._glance is not None:
            from desktop_agent.core.services import Services

            services = self._given["services"] = self._given["services"] or self._ahead.services or Services()
            layered = load_layered(self._glance, services)
            self._given.update(settings=layered.effective, saved=layered.saved)
            self._given["warnings"].extend(layered.warnings)
            self._glance = None

    def _open_services(self) -> None:
        """The controller (the core objects, the current chat) and the widgets that show it: the chat view, the
        options strip, the folder offer, the MCP status, the sidebar's details — and their connections."""
        from desktop_agent.ui.branch_actions import BranchActions
        from desktop_agent.ui.chat.view import ChatView
        from desktop_agent.ui.chat_options import ChatOptions
        from desktop_agent.ui.chat_setup import ChatSetup
        from desktop_agent.ui.controller import ChatController
        from desktop_agent.ui.folder_offer import FolderOffer
        from desktop_agent.ui.mcp_status import McpStatus

        given = dict(self._given)
        ctl = ChatController(self, settings=given.pop("settings"), **given)
        self.controller = ctl
        self.mcp_status: McpStatus = McpStatus(ctl.assembly)  # hidden without MCP servers; a click opens their page
        self.mcp_status.open_requested.connect(lambda: self.open_settings(tab=translate("MainWindow", "MCP servers")))
        self.statusBar().addPermanentWidget(self.mcp_status)
        self.chat = chat = ChatView()
        self.compose_area.set_chat(chat)
        mcp_bundle.attach(self)  # File → Install MCP bundle…, and a bundle dropped onto the window
        self.chat_options: ChatOptions = ChatOptions(ctl.assembly, ctl.tasks)
        self.folder_offer: FolderOffer = FolderOffer()
        self.compose_area.set_options(self.chat_options, self.folder_offer)
        self.sidebar.build_details()
        self.announcer = AnswerAnnouncer(chat)  # a screen reader hears that an answer ended
        for widget in (chat, self.sidebar, self.folder_offer, self.server_label, self.announcer):
            ctl.add_routes(widget.routes())
        self._connect(ctl)
        self.branch_actions = BranchActions(self)  # regenerate, edit and resend, fork, ‹ 2/3 ›, delete a branch
        self.chat_setup = ChatSetup(self, ctl)  # presets, the chat's own prompt, its model missing
        self.context_meter.show_chat(ctl.session.id)
        self._refresh_backend_labels()

    def _connect(self, ctl: ChatController) -> None:
        chat, sb = self.chat, self.statusBar()
        chat.status_message.connect(lambda t: sb.showMessage(t, 3000))
        chat.error_action.connect(self._on_error_action)
        chat.suggestion.connect(self._send_text)
        chat.unsent_text.connect(ctl.unsent)
        chat.undo_summary.connect(ctl.undo_summary)
        chat.tool_clicked.connect(self._show_tool_call)
        chat.frame_interval_changed.connect(ctl.runner.set_batch_ms)  # one hand-over of streamed text a frame
        self.chat_options.options_changed.connect(self._set_chat_options)
        self.composer.connect_files(ctl, self.capabilities, sb, chat)
        self.folder_offer.folder_chosen.connect(ctl.allow_folder)
        self.sidebar.cancel_requested.connect(ctl.runner.cancel_tool_call)
        self.server_label.online_again.connect(lambda: ctl.refresh_models())
        for widget_restyle in (self.chat_options.restyle, chat.restyle, self.mcp_status.refresh):
            self.restyle.connect(widget_restyle)
        ctl.busy_changed.connect(self._set_busy)
        ctl.title_changed.connect(self._update_title)
        ctl.status.connect(sb.showMessage)
        ctl.status_cleared.connect(sb.clearMessage)
        ctl.chat_opened.connect(self._show_chat)
        ctl.settings_changed.connect(self._refresh_backend_labels)
        ctl.theme_changed.connect(self._use_theme)
        ctl.models_listed.connect(self.picker.fill)
        ctl.model_facts.connect(self._on_model_facts)
        ctl.server_online.connect(self.server_label.show_online)
        ctl.server_problem.connect(self.server_label.show_problem)
        ctl.server_checking.connect(self.server_label.show_checking)
        ctl.usage.connect(self.context_meter.note)
        ctl.chat_saved.connect(self.history.note_saved)
        ctl.turn_ended.connect(self._on_turn_ended)
        ctl.give_back.connect(self._give_back_text)
        ctl.chats_changed_elsewhere.connect(lambda: self.history.refresh(ctl.session.id))
        from desktop_agent.ui.notify import AnswerNotifier
        from desktop_agent.ui.tray import AppTray

        self.tray = AppTray(self, ctl)  # the tray icon, when Settings → Desktop asks for it
        self.notifier = AnswerNotifier(self, ctl, self.tray)  # a long answer ended in the background

    def _open_store(self) -> None:
        """The keyring, the store and the history panel; the start-up warnings."""
        ctl = self._ctl
        ctl.open_store()
        panel = self.history.install(ctl.store, ctl.warnings.append)
        if panel is not None:
            self.set_history_panel(panel)
        for w in ctl.warnings:
            self.statusBar().showMessage(w, 15000)
            log.warning(w)

    def _reopen_last_chat(self) -> None:
        # the tab order first, while the chat view holds no message: walking the focus chain gives Python
        # wrappers to the widgets in it, and once such message widgets were deleted (a chat opened again),
        # PySide 6.11 was seen to invalidate wrappers the window holds (the chat options' Think actions)
        self._arrange_tab_order_now()
        reopen_last_chat(self, self.qsettings())

    def _check_server(self) -> None:
        """The server check and the MCP servers, in the background; then a message sent meanwhile goes."""
        if self.check_server_on_start:
            self.refresh_models()
        self._ctl.start_mcp()
        text, self.waiting_text = self.waiting_text, ""
        if text and not self._closing:
            self._send_now(text)

    def set_history_panel(self, panel: HistoryPanel) -> None:
        """Put ``panel`` in the left dock (View → History, Ctrl+H) and connect its signals."""
        self.history.set_panel(panel)
        panel.conversation_activated.connect(self.open_conversation)
        panel.message_activated.connect(self.open_conversation)
        panel.conversation_deleted.connect(self._on_conversation_deleted)
        panel.conversation_renamed.connect(lambda cid, title: self._ctl.rename(cid, title))
        panel.status_message.connect(lambda t: self.statusBar().showMessage(t, 6000))
        self.restyle.connect(panel.restyle)
        if self.startup.reached("last chat"):  # a panel set later (at start-up, the "last chat" stage does it)
            self._arrange_tab_order()

    def _arrange_tab_order(self) -> None:
        """Tab goes round the window as it reads: the chat's options, the message box and Send, the status bar,
        the tool activity, the toolbar, the history, then the conversation and its messages (new ones join
        there), back to the options — so Shift+Tab from the box reaches the latest answer at once. Done once
        the stand-ins the built widgets replaced are deleted (they are in the focus chain until then)."""
        QTimer.singleShot(0, self, self._arrange_tab_order_now)

    def _arrange_tab_order_now(self) -> None:
        if self.controller is not None and not self._closing:
            arrange_tab_order(self, [self.chat_options, self.composer, self.statusBar(), self.tool_dock,
                                     self.toolbar, self.history.dock, self.chat], others_before=4)

    history_panel = property(lambda self: self.history.panel)
    history_dock = property(lambda self: self.history.dock)
    history_action = property(lambda self: self.history.action)

    # ---- following the controller ----------------------------------------------------------------

    def _set_busy(self, busy: bool) -> None:
        busy = busy and self.built  # nothing runs before the services are built
        self.composer.set_busy(busy)
        self.stop_action.setEnabled(busy)
        self.compact_action.setEnabled(not busy)

    def _update_title(self, title: str) -> None:
        self.setWindowTitle(f"{title} — {APP_DISPLAY_NAME}" if title and title != "New chat" else APP_DISPLAY_NAME)

    def _refresh_backend_labels(self) -> None:
        s = self.controller.chat_settings if self.controller is not None else self.settings  # the chat's own
        self.picker.show_choice(s)
        if self.controller is not None:
            self.chat.live_model = s.model  # the model the next turn asks, in its header while it streams
            self.chat_options.show_options(self.settings, self.conversation.options)
            self.chat.set_tools_offered(self.controller.tools_offered())
            self._show_capabilities()
        where = s.ollama.host if s.backend == "ollama" else s.openai.base_url
        label = translate("ModelPicker", dict(BACKENDS)[s.backend])
        self.backend_label.setText(f"{label} · {s.model}")
        self.backend_label.setToolTip(translate("MainWindow", "{label} at {where}, model {model}").format(label=label,
                where=where, model=s.model))

    def _show_capabilities(self) -> None:
        m = self.settings.models
        self.capabilities.show_model(self._ctl.chat_settings.model, m.tools_anyway, m.think_anyway)

    def _on_model_facts(self, facts: dict) -> None:
        self.capabilities.set_facts(facts)
        self.chat_options.set_model_facts(facts)
        self._show_capabilities()

    def _show_chat(self, conversation: Any, decisions: dict[str, str] | None) -> None:
        """Another chat is on screen: a new one (``decisions`` None) or one opened from the history."""
        self.chat_options.set_next_tool(None)  # a tool chosen for the next message was for the other chat
        self._refresh_backend_labels()
        self.context_meter.show_chat(conversation.id)
        self.history.show_current(conversation.id if conversation.messages else None)
        if decisions is None:
            self.chat.clear()
            self.sidebar.clear()
            self.input.setFocus()
        else:
            self.chat.set_conversation(conversation)
            self.sidebar.load(conversation, decisions)

    def _on_turn_ended(self) -> None:
        self.chat_options.refresh()  # the turn may have learned that the model answers nothing with tools
        if self.confirm_stop is not None:  # the answer ended while "stop it?" was asked: nothing to stop
            self.confirm_stop.stop_button.click()
        self.history.refresh(self.conversation.id if self.conversation.messages else None)
        if not self.busy and not self._closing:
            self.input.setFocus()

    def _give_back_text(self, text: str, tool: str | None) -> None:
        """A turn failed before the message joined the chat: it goes back for another try (with its tool)."""
        if not self.input.toPlainText().strip():
            self.input.setPlainText(text)
            if tool and self.chat_options.next_tool is None:
                self.chat_options.set_next_tool(tool)

    # ---- the user's wishes -----------------------------------------------------------------------

    def _send_text(self, text: str) -> None:
        if not self.ready and text.strip():  # the store and the keys are not there yet: it goes in a moment
            self.waiting_text = text
            self.input.clear()
            self.statusBar().showMessage(translate("MainWindow", "Starting up — your message is sent in a moment…"),
                    3000)
            return
        self._send_now(text)

    def _send_now(self, text: str) -> None:
        if self.busy:
            self.statusBar().showMessage(translate("MainWindow", "Wait for the answer, or press Stop (Esc)."), 3000)
            return
        if not text.strip() and not self.composer.tray.attachments():
            return
        window = self.context_meter.window_tokens()
        tokens = oversized(text, self.settings.loop.system_prompt, window)
        if tokens is not None and not confirm_oversized(self, tokens, window or 0):
            return
        self.input.clear()
        self._ctl.send(text, self.chat_options.take_next_tool(), self.composer.tray.take())

    def _recall_last_message(self) -> None:
        """Up in the empty message box: the chat's last message from the user comes back into it, to edit."""
        if self.controller is None or self.busy:
            return
        last = next((m for m in reversed(self.conversation.messages) if m.role == "user" and m.content), None)
        if last is not None:
            self.input.recall(last.content)

    def send(self, text: str) -> None:
        """Send ``text`` as if typed (used by tests and the suggestions)."""
        self._send_text(text)

    def retry(self) -> None:
        """Run the turn again from the saved history (after an error)."""
        self._ctl.retry()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()

    def compact_chat(self) -> None:
        if self.controller is not None:
            self.controller.compact()

    def _when_idle(self, fn, what: str = "go on", *, ask: bool = True) -> None:
        """Run ``fn`` now, or — when an answer is being written — ask first: stop it and run ``fn`` once the
        turn has ended, or keep the answer going. An answer is never stopped without the user saying so
        (``ask=False``: they already did, e.g. by deleting the chat it is written into)."""
        if not self.busy:
            fn()
            return
        if not ask:
            self._ctl.after_turn(fn)
            return
        if self.confirm_stop is not None:
            self.confirm_stop.close()

        def stop() -> None:
            self.confirm_stop = None
            if self.busy:
                self._ctl.after_turn(fn)
            else:  # the answer ended meanwhile
                fn()

        self.confirm_stop = StopQuestion.ask(what, self, stop)
        self.confirm_stop.finished.connect(lambda _r: setattr(self, "confirm_stop", None))

    def new_chat(self, *, ask: bool = True, preset: Any = None) -> None:
        if self.controller is not None:
            self._when_idle(lambda: self._ctl.new_chat(preset), translate("MainWindow", "start a new chat"), ask=ask)

    def open_conversation(self, conversation_id: str, message_id: int | None = None) -> None:
        """Load a saved chat (from the history panel); ``message_id``: scroll to that message (a search hit).
        A running turn is stopped first."""

        def go() -> None:
            if self._ctl.open_conversation(conversation_id, message_id) and message_id is not None:
                self.chat.scroll_to_message(message_id)

        self._when_idle(go, translate("MainWindow", "open that chat"))

    def _on_conversation_deleted(self, conversation_id: str) -> None:
        if conversation_id == self.conversation.id:
            self.new_chat(ask=False)  # the user chose to delete it: stopping its answer goes with that

    def _show_tool_call(self, call_id: str) -> None:
        self.tool_dock.show()
        self.tool_dock.raise_()
        self.sidebar.select_call(call_id)

    def _set_chat_options(self, options: dict[str, Any]) -> None:
        self._ctl.set_chat_options(options)
        self.chat.set_tools_offered(self._ctl.tools_offered())

    def _on_error_action(self, action: Any, card: Any) -> None:
        from desktop_agent.ui.errors import perform

        perform(self, action, card)

    def pull_model(self, name: str, card: Any = None) -> None:
        self._ctl.pull_model(name, card)

    def _on_backend_picked(self, key: str) -> None:
        if self._ctl.pick_backend(key):
            self.picker.clear_models(self._ctl.chat_settings.model)

    def _on_model_picked(self, name: str) -> None:
        self._ctl.pick_model(name)

    def _recheck(self) -> None:
        if self.controller is not None:
            self.controller.recheck()

    def refresh_models(self, then=None) -> None:
        """List the server's models in the background; ``then`` runs once the listing has ended."""
        if self.controller is not None and not self._closing:
            self.controller.refresh_models(then)

    def _use_theme(self, choice: str) -> None:
        if isinstance(app := QApplication.instance(), QApplication):
            theme.apply(app, choice)

    def apply_settings(self, settings: Settings) -> None:
        """New saved settings (from the dialog): used from the next turn on; a new theme at once (the controller's
        ``theme_changed``, as for settings another window saved)."""
        self._ctl.apply_settings(settings, mcp_now=self.ready)

    def open_settings(self, tab: str = "") -> None:
        """Open the settings dialog (window-modal, non-blocking) — at the page titled ``tab``, if given; saved
        settings apply from the next turn."""
        from desktop_agent.ui.settings.opener import open_settings  # after the window shows

        open_settings(self, tab)

    def show_shortcuts(self) -> None:
        """Help → Keyboard shortcuts."""
        from desktop_agent.ui.help import ShortcutsDialog

        ShortcutsDialog(self).exec()

    def bring_to_front(self) -> None:
        """Show the window above the others, with the focus: another start of the app asked for it."""
        from desktop_agent.ui.single_instance import raise_window

        raise_window(self)

    def focus_input(self) -> None:
        self.input.setFocus()
        self.input.selectAll()

    def _about(self) -> None:
        from desktop_agent.ui.help import show_about
        show_about(self, APP_DISPLAY_NAME)

    # ---- look, layout, closing -------------------------------------------------------------------

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and not self._closing:
            icons.clear_cache()
            QTimer.singleShot(0, self.restyle.emit)
        elif event.type() == QEvent.Type.ActivationChange and self.built and self.ready and self.isActiveWindow():
            self._ctl.check_outside_changes()  # a terminal may have changed the settings or imported chats

    def _restyle_frame(self) -> None:
        self._set_busy(self.busy)

    def qsettings(self) -> QSettings:
        return QSettings(str(paths.config_dir() / "window.ini"), QSettings.Format.IniFormat)

    def shutdown(self) -> bool:
        """Stop background work: cancel the turn (its partial answer is saved as interrupted), wait for the
        worker (≤ 2.5 s, never terminate), stop pulls, close the store. Idempotent."""
        if self._closing:
            return True
        self._closing = True
        self.closing.emit()
        self.startup.stop()
        save_layout(self, self.qsettings(), self.dock_fit, self.history.dock)
        if self.controller is not None and self.startup.reached("last chat"):
            conversation = self.conversation
            save_place(self.qsettings(), conversation.id if conversation.messages else None,
                       self.chat.top_message_id())
        return self.controller.shutdown() if self.controller is not None else True

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if not self._shown_once:
            self._shown_once = True
            after_first_frame(self, self.startup.start)  # paint first, then the rest
            if not self._layout_restored:  # first start: the sidebar takes about 30 % of the width
                w = max(240, min(340, int(self.width() * 0.27)))
                self.resizeDocks([self.tool_dock], [w], Qt.Orientation.Horizontal)
            self._fit_toolbar()
            self.dock_fit.schedule()  # a layout restored from a larger screen

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if self._shown_once and not self._closing:
            self._fit_toolbar()
            self.dock_fit.schedule()

    def _fit_toolbar(self) -> None:
        if hasattr(self, "history"):
            self.toolbar.fit(self.width(), self.history.action)

    def quit(self) -> None:
        """Quit the app (Ctrl+Q): the window closes for good, also when closing it only hides it to the tray."""
        if self.tray is not None:
            self.tray.quitting = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.tray is not None and self.tray.intercept_close(event):
            return  # hidden to the tray: the app goes on
        self.shutdown()
        event.accept()
        super().closeEvent(event)
