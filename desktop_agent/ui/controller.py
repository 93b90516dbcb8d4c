"""The chat controller: everything the window does that is not a widget — the core objects, the current chat,
the turns and the models — behind one :class:`ChatController` (a ``QObject``).

It owns the app's :class:`~desktop_agent.core.services.Services` (the one composition root: settings file,
environment, secrets, store, permissions and their rules, the assembly, MCP), the settings in use, the turn
runner (:mod:`~desktop_agent.ui.agent_runner`), the task runner (:mod:`~desktop_agent.ui.tasks`) and the
current :class:`~desktop_agent.core.session.ChatSession`. Every event of a turn goes through ONE table
(:attr:`ChatController.events`, event type → handlers): the controller's own handlers and those of the widgets
that show events (the window adds their ``routes()``). What changed is said by signals; the controller never
calls the window.

Imported after the window's first frame (it brings pydantic, the settings and the messages with it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_agent.core.errors import AuthenticationFailed, BackendUnreachable, KeyringLocked, NoApiKey, StoreError
from desktop_agent.core.events import (
    ChatUpdated,
    ContextUsage,
    Notice,
    TurnCancelled,
    TurnFailed,
)
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.messages import Attachment, Conversation
from desktop_agent.core.services import Services
from desktop_agent.core.session import ChatSession
from desktop_agent.core.settings import Settings
from desktop_agent.core.tools.remembered import audited_decisions
from desktop_agent.ui import errors as ui_errors
from desktop_agent.ui.agent_runner import AgentRunner, TurnCrashed, TurnEnded, TurnStarted
from desktop_agent.ui.branching import Branching
from desktop_agent.ui.event_table import EventTable
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.model_listing import ModelListing
from desktop_agent.ui.pull import PullController
from desktop_agent.ui.tasks import TaskRunner

log = logging.getLogger(__name__)

#: what the user is told when they try something that needs the answer to end first
WAIT = QT_TRANSLATE_NOOP("MainWindow", "Wait for the answer, or press Stop (Esc).")


class ChatController(QObject, Branching):
    """The window's core and turn logic. ``settings``: the effective settings (file + command-line overrides);
    ``saved``: what the settings file holds (picker changes are saved there, overrides are not; None: the
    settings did not come from the file, and the file is neither written nor followed). ``services``: the
    app's services (default: opened here, with the test hooks ``assembly``, ``store`` — None: the default one,
    opened by :meth:`open_store`; ``False``: nothing is saved — and ``secrets``)."""

    #: a turn runs (True) or ended (False)
    busy_changed = Signal(bool)
    #: the title of the chat on screen ("" for a new chat)
    title_changed = Signal(str)
    #: a line for the status bar, shown for so many ms; :attr:`status_cleared`: the line goes
    status = Signal(str, int)
    status_cleared = Signal()
    #: another chat is on screen: (conversation, audited decisions by call id) — a new chat: (conversation, None)
    chat_opened = Signal(object, object)
    #: the settings in use changed (a picker, the dialog, a listing that found the model's full name)
    settings_changed = Signal()
    #: the colour theme chosen changed (the dialog, or another window's save followed on focus-in): the choice
    theme_changed = Signal(str)
    #: the server's models were listed: (names, the model in use); :attr:`model_facts`: what it says about them
    models_listed = Signal(list, str)
    model_facts = Signal(dict)
    #: the server answers (its version, "" when unknown) / does not: (label, details) / is being asked
    server_online = Signal(str)
    server_problem = Signal(str, str)
    server_checking = Signal()
    #: a request of chat (id) reported its context usage
    usage = Signal(str, object)
    #: chat (id) was saved; (id, True) when it is the chat on screen
    chat_saved = Signal(str, bool)
    #: a turn has ended (after every handler of its last event)
    turn_ended = Signal()
    #: the text of a message that never joined the chat, and the tool chosen for it (None): back to the composer
    give_back = Signal(str, object)
    #: the files of a message that could not be sent (list of Attachment), back to the compose box
    give_back_files = Signal(list)
    #: another process changed the saved chats (a ``history import`` in a terminal): the history is read again
    chats_changed_elsewhere = Signal()
    #: the chat on screen has new versions of its messages (a regenerated answer, an edited message):
    #: ``Conversation.siblings``, for the ``‹ 2/3 ›`` of each
    siblings_changed = Signal(object)
    #: a note about a change of the chat's settings was added to it (the Message)
    chat_noted = Signal(object)
    #: the server does not have the model of the chat on screen (its name; "" once it has, or another chat shows)
    chat_model_missing = Signal(str)

    def __init__(self, parent: QObject | None = None, *, settings: Settings | None = None,
                 saved: Settings | None = None, warnings: list[str] | None = None, assembly: Any = None,
                 store: Any = None, secrets: Any = None, tasks: TaskRunner | None = None,
                 services: Services | None = None):
        super().__init__(parent)
        self.services = services or Services(secrets=secrets, store=store or None, assembly=assembly)
        if saved is not None:
            self.services.layered  # noqa: B018 — the file as the window opened it: a later change is news
        self.settings: Settings = settings if settings is not None else Settings()
        self.saved = saved
        self.warnings = list(warnings or [])
        self.store = store
        self.tasks = tasks or TaskRunner(self)
        #: the one table: event type → handlers (the widgets' are added by the window)
        self.events = EventTable(last=self._routes())
        self.closing = False
        self._after_turn: list[Callable[[], None]] = []
        #: the tool the last message was sent to use (the strip's choice), given back with a message that failed
        self._sent_tool: str | None = None
        #: the turn running started a new branch (regenerate, edit and resend): the versions are shown after it
        self._branching = False
        #: a regenerate running: (the chat, the end of the branch it showed) — shown again if nothing new is saved
        self._regenerated_from: tuple[str, int | None] | None = None
        #: the files the last message was sent with, given back with a message that failed
        self._sent_files: list[Attachment] = []
        self._open_core()

    def _open_core(self) -> None:
        """What the window works with, from :attr:`services`: the assembly, the turn runner, the model listing, the
        pull, the current chat. The store opens later (:meth:`open_store`): SQLite and the keyring after the first
        frame (the secret store reads the keyring only when a key is first needed)."""
        self.secrets = self.services.secrets
        self.assembly = self.services.assembly
        self.session = ChatSession(Conversation(), self.store or None)
        self.runner = AgentRunner(self.assembly, self)
        self.runner.turn_event.connect(self.events.route)
        self.listing = ModelListing(self.assembly, self.tasks, lambda: self.chat_settings, lambda: self.runner.busy,
                                    self)
        self.listing.started.connect(self.server_checking)
        self.listing.listed.connect(self._on_models_listed)
        self.listing.facts.connect(self.model_facts)
        self.listing.failed.connect(self._on_listing_failed)
        #: pulls an Ollama model (the Settings dialog's Pull, an error card's)
        self.pull = PullController(self.assembly, self.tasks, self)

    def open_store(self) -> None:
        """The store (the services' one unless given); the permission rules kept in it. A store that cannot be
        opened costs saving, not the chat (``store`` is then False and a warning says so)."""
        if self.store is None:
            try:
                self.store = self.services.store
                self.warnings.extend(self.store.warnings)
            except Exception as exc:  # the chat still works, it just isn't saved
                log.exception("could not open the conversation store")
                self.warnings.append(translate("Controller",
                        "Chats will not be saved: the store could not be opened ({exc}).").format(exc=exc))
                self.store = False
        elif self.store:
            self.services.store  # noqa: B018 — a given store: the permission rules are kept in it too
        if self.store and self.session.store is None:
            self.session.store = self.store
        if self.store:  # attached files no chat uses any more (a crash, an older version): off the window's thread
            store = self.store
            self.tasks.run(lambda _task: store.sweep_attachments(), key="sweep attachments")
        self.warnings.extend(self.services.rule_warnings)  # "always allow" could not survive a restart

    def check_outside_changes(self) -> None:
        """What another process changed meanwhile (called when the window gets the focus, and before Settings
        opens): settings saved by a terminal's ``desktop-agent mcp add`` are used from the next turn; chats it
        imported are listed; the chat on screen, continued by ``desktop-agent chat --chat ID``, is shown as saved."""
        if self.closing:
            return
        self._follow_outside_settings()
        if self.store and self.services.store_changed():
            self.chats_changed_elsewhere.emit()
            self._reload_if_continued_elsewhere()

    def _follow_outside_settings(self) -> None:
        layered = self.services.settings_changed() if self.saved is not None else None
        if layered is not None and layered.saved != self.saved:
            log.info("the settings file was changed by another program: its settings are used from now on")
            self.apply_settings(layered.saved)

    def _reload_if_continued_elsewhere(self) -> None:
        """The chat on screen grew in the store (another process continued it): show it as saved. Not during a
        turn (the turn saves to it), not for a chat not saved yet."""
        shown = self.session.conversation
        if self.busy or not shown.messages or not self.store:
            return
        try:
            saved = self.store.load(shown.id)
        except StoreError:  # not saved (yet), or deleted elsewhere: what is on screen stays
            return
        if len(saved.messages) != len(shown.messages):
            log.info("chat %s was continued by another program: shown again as saved", shown.id)
            self._show_session(saved, audited_decisions(self.store, saved.id))

    def start_mcp(self) -> None:
        """Start the MCP servers in the background (after the window shows)."""
        if self.settings.mcp.enabled and self.settings.mcp.servers:
            settings, assembly = self.settings, self.assembly
            self.tasks.run(lambda _task: assembly.mcp(settings), key="mcp-start")

    # ---- the one table ---------------------------------------------------------------------------

    def _routes(self) -> dict[type, Callable[[Any], None]]:
        return {TurnStarted: self._on_turn_started, Notice: self._on_notice, ContextUsage: self._on_usage,
                ChatUpdated: self._on_chat_updated, TurnFailed: self._on_failed,
                TurnCancelled: self._on_cancelled, TurnCrashed: self._on_crashed, TurnEnded: self._on_turn_ended}

    def add_routes(self, routes: dict[type, Callable[[Any], None]]) -> None:
        """A widget's event handlers (its ``routes()``) join the table, before the controller's own."""
        self.events.add_all(routes)

    def _on_turn_started(self, _ev: TurnStarted) -> None:
        self.busy_changed.emit(True)

    def _on_notice(self, ev: Notice) -> None:
        self.status.emit(ev.text, 8000)

    def _on_usage(self, ev: ContextUsage) -> None:
        self.usage.emit((self.runner.session or self.session).id, ev)

    def _on_chat_updated(self, ev: ChatUpdated) -> None:
        shown = ev.conversation_id == self.session.id
        if shown:
            self.title_changed.emit(ev.title)
        if self.store:  # the chat is saved from its first message on: it is in the list from then
            self.chat_saved.emit(ev.conversation_id, shown)

    def _on_failed(self, ev: TurnFailed) -> None:
        self.status_cleared.emit()  # a "retrying in 1 s" notice is over: the card says how it ended
        if isinstance(ev.error, BackendUnreachable | AuthenticationFailed | NoApiKey | KeyringLocked):
            self.server_problem.emit(ui_errors.status_label(ev.error), str(ev.error))
        elif ui_errors.describe(ev.error).unexpected:
            cause = ui_errors.unexpected_cause(ev.error)
            ui_errors.report_unexpected(cause, "the agent", cause.__traceback__)

    def _on_cancelled(self, _ev: TurnCancelled) -> None:
        self.status.emit(translate("Controller", "Stopped. The partial answer is kept."), 4000)

    def _on_crashed(self, ev: TurnCrashed) -> None:
        ui_errors.report_unexpected(ev.error, "the agent", ev.error.__traceback__)

    def _on_turn_ended(self, _ev: TurnEnded) -> None:
        if self._branching:
            self._branching = False
            if not self._show_kept_answer():
                self._refresh_siblings()
                self._say_if_same_answer()
        self.busy_changed.emit(False)
        self.turn_ended.emit()
        pending, self._after_turn = self._after_turn, []
        for fn in pending:
            fn()
        self.listing.turn_ended()

    # ---- turns -----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.runner.busy

    @property
    def conversation(self) -> Conversation:
        """The chat on screen."""
        return self.session.conversation

    def send(self, text: str, tool: str | None = None, attachments: Sequence[Attachment] = ()) -> None:
        """Send ``text`` as a new turn; ``tool``: the one turn is asked to use it (the strip's choice);
        ``attachments``: the files attached to it."""
        self._sent_files = list(attachments)
        self._start(text, tool, self._sent_files)

    def retry(self) -> None:
        """Run the turn again from the saved history (after an error)."""
        if not self.busy:
            self._start(None, None)

    def _start(self, text: str | None, tool: str | None, attachments: Sequence[Attachment] = ()) -> None:
        settings = self.settings
        if tool:  # the strip's "Use this tool for the next message": this one turn only
            settings = settings.updated({"loop.tool_choice": tool})
        self._sent_tool = tool
        self.runner.start_turn(self.session, text, settings, attachments=attachments)

    def unsent(self, text: str) -> None:
        """A turn failed before the message joined the chat: its text (and tool, and files) go back to the
        composer."""
        self.give_back.emit(text, self._sent_tool)
        if self._sent_files:
            self.give_back_files.emit(self._sent_files)

    def stop(self) -> None:
        if self.busy:
            self.runner.stop()
            self.status.emit(translate("Controller", "Stopping…"), 2000)

    def compact(self) -> None:
        """Summarise the chat's earlier messages (the model writes the summary; it is sent instead of them)."""
        if self.busy:
            self.status.emit(translate("MainWindow", WAIT), 3000)
            return
        self.runner.start_turn(self.session, None, self.settings, compact=True)

    def undo_summary(self, summary: Any) -> None:
        if self.busy:
            self.status.emit(translate("MainWindow", WAIT), 3000)
            return
        try:
            self.events.route(self.session.undo_compaction(summary))
        except StoreError as exc:
            self.status.emit(translate("Controller", "Could not undo the summary: {error}").format(error=exc), 8000)
            return
        self.status.emit(translate("Controller", "Summary undone: the earlier messages are sent again."), 5000)

    def after_turn(self, fn: Callable[[], None]) -> None:
        """Stop the answer being written and run ``fn`` once its turn has ended."""
        self._after_turn.append(fn)
        self.runner.stop()

    # ---- chats -----------------------------------------------------------------------------------

    @property
    def chat_settings(self) -> Settings:
        """The settings the chat on screen uses: :attr:`settings` with its own options (its backend and model,
        system prompt, temperature, tools) — what the pickers show."""
        return self.session.effective(self.settings)

    def new_chat(self, preset: Any = None) -> None:
        """A new chat; ``preset`` (a :class:`~desktop_agent.core.settings.Preset`): it starts with the preset's
        system prompt, model, temperature and tools."""
        from desktop_agent.core.presets import chat_options_of

        options = chat_options_of(preset, self.settings) if preset is not None else {}
        self._show_session(Conversation(options=options), None)
        if preset is not None:
            self.status.emit(translate("Controller", "New chat with {preset}.").format(preset=preset.name), 4000)

    def open_conversation(self, conversation_id: str, message_id: int | None = None) -> bool:
        """Load a saved chat; False (and a status line) when it cannot be read. ``message_id`` (a search hit): the
        chat shows the branch holding that message."""
        if not self.store:
            return False
        try:
            conv = self.store.load(conversation_id)
            if message_id is not None and all(m.id != message_id for m in conv.messages):
                self.store.switch_branch(message_id)
                conv = self.store.load(conversation_id)
        except Exception as exc:
            log.exception("could not open chat %s", conversation_id)
            self.status.emit(translate("Controller", "Could not open the chat: {error}").format(error=exc), 8000)
            return False
        self._show_session(conv, audited_decisions(self.store, conv.id))
        return True

    def _show_session(self, conversation: Conversation, decisions: dict[str, str] | None) -> None:
        before = self.chat_settings
        self.session = ChatSession(conversation, self.store or None)
        self.chat_model_missing.emit("")
        self.chat_opened.emit(conversation, decisions)
        after = self.chat_settings
        if (after.backend, after.model) != (before.backend, before.model) and not self.closing:
            self.refresh_models()  # the chat's own model: the picker lists its backend's models and shows it
        self.title_changed.emit(conversation.title or (conversation.default_title() if conversation.messages
                                                       else ""))

    # ---- branches ----------------------------------------------------------------------------------

    def _refused(self) -> bool:
        """Branches change while no answer is written (that answer would go to the branch left)."""
        if self.busy:
            self.status.emit(translate("MainWindow", WAIT), 3000)
            return True
        if not self.store:
            self.status.emit(translate("Controller", "Chats are not saved, so they have no branches."), 5000)
            return True
        return False

    def rename(self, conversation_id: str, title: str) -> None:
        """The history panel renamed a chat: the one on screen takes the title (not while it answers)."""
        if conversation_id == self.conversation.id and not self.busy:
            self.conversation.title = title
            self.title_changed.emit(title)

    def set_chat_options(self, options: dict[str, Any]) -> None:
        """The user changed the chat's options: used from its next turn, saved with it (a new chat's are
        saved with its first message)."""
        self.conversation.options = options
        if self.store:
            try:
                self.store.set_options(self.conversation.id, options)
            except StoreError as exc:
                self.status.emit(f"Could not save this chat's options: {exc}", 8000)

    def _chat_choice(self, changes: dict[str, Any]) -> None:
        """The chat on screen chose ``changes`` (its backend, model, system prompt): kept in its options."""
        self.set_chat_options({**self.conversation.options, **changes})

    def set_system_prompt(self, text: str) -> bool:
        """This chat's own system prompt (the Settings one when ``text`` is empty); recorded in the chat as a
        note when it has messages. False when nothing changed."""
        before = self.chat_settings.loop.system_prompt
        options = dict(self.conversation.options)
        if text.strip() and text.strip() != self.settings.loop.system_prompt.strip():
            options["loop.system_prompt"] = text.strip()
        else:
            options.pop("loop.system_prompt", None)
        self.set_chat_options(options)
        after = self.chat_settings.loop.system_prompt
        if after == before:
            return False
        self._note(translate("Controller", "System prompt changed: {prompt}").format(prompt=_clip(after) or
                   translate("Controller", "(none)")))
        self.settings_changed.emit()
        return True

    def _note(self, text: str) -> None:
        """Record a change of the chat's settings in it (shown, kept, never sent) — once its answer being written
        has ended (the turn adds messages to it meanwhile)."""
        session = self.session

        def add() -> None:
            note = session.note(text)
            if note is not None and session is self.session:
                self.chat_noted.emit(note)

        if self.busy:
            self._after_turn.append(add)
        else:
            add()

    def tools_offered(self) -> bool:
        """Whether the chat on screen offers the model tools (its options over the settings)."""
        return self.session.effective(self.settings).tools.enabled

    # ---- settings and models ---------------------------------------------------------------------

    def update_settings(self, changes: dict[str, Any]) -> None:
        """Change settings for the next turn and save the same change to the settings file (command-line
        overrides stay out of the file)."""
        # first what another process saved meanwhile (the window may have kept the focus: no focus-in told it) —
        # the save below reads it from the file, and after it no check would see it as news
        self._follow_outside_settings()
        self.settings = self.settings.updated(changes)
        if self.saved is not None:
            before, self.saved = self.saved, self.saved.updated(changes)
            try:  # the change, on top of the file as it is now: what another process saved meanwhile stays
                self.saved = self.services.save_settings(before, self.saved).saved
            except (OSError, ValueError) as exc:
                self.status.emit(f"Could not save settings: {exc}", 8000)
        self.settings_changed.emit()

    def allow_folder(self, folder: str) -> None:
        """The folder offer's choice: file and command tools may use ``folder`` from the next call on."""
        self._follow_outside_settings()  # the list as the file has it now (another window may have added one)
        folders = list(self.settings.tools.allowed_folders)
        if folder not in folders:
            self.update_settings({"tools.allowed_folders": [*folders, folder]})
        self.status.emit(f"File and command tools may use {folder} (Settings → Tools lists the folders). Ask again.",
                         8000)

    def pick_backend(self, key: str) -> bool:
        """The backend picker's choice, for the chat on screen and as the default of new chats; True when it
        changed (its models are listed again)."""
        before = self.chat_settings
        if key == before.backend:
            return False
        model = self.settings.get(f"{key}.model")
        self._chat_choice({"backend": key, f"{key}.model": model})
        if key != self.settings.backend:
            self.update_settings({"backend": key})
        else:
            self.settings_changed.emit()
        self._note_model(before)
        self.refresh_models()
        return True

    def pick_model(self, name: str) -> None:
        """The model picker's choice, for the chat on screen (recorded in it) and as the default of new chats."""
        name = name.strip()
        before = self.chat_settings
        if not name or name == before.model:
            return
        self._chat_choice({"backend": before.backend, before.model_field: name})
        if before.backend == self.settings.backend and name != self.settings.model:
            self.update_settings({before.model_field: name})
        else:
            self.settings_changed.emit()
        self._note_model(before)
        self.chat_model_missing.emit("")
        self.status.emit(translate("Controller", "Model: {name} (from the next message)").format(name=name), 4000)

    def _note_model(self, before: Settings) -> None:
        after = self.chat_settings
        if (after.backend, after.model) != (before.backend, before.model):
            self._note(translate("Controller", "Model: {before} → {after}").format(before=before.model,
                                                                                  after=after.model))

    def use_anyway(self, what: str, model: str, on: bool) -> None:
        """Offer ``model`` tools (``what`` "tools") or ask it to think although its server says it can't."""
        key = "models.tools_anyway" if what == "tools" else "models.think_anyway"
        self._follow_outside_settings()  # the list as the file has it now
        names = [n for n in self.settings.get(key) if n != model] + ([model] if on else [])
        self.update_settings({key: names})

    def apply_settings(self, settings: Settings, *, mcp_now: bool = True) -> None:
        """New saved settings (from the dialog, or saved by another process): layered again with the environment
        and the command line (one layering, in core.services) and used from the next turn on. ``mcp_now``:
        changed MCP servers (re)start at once."""
        mcp_before, theme_before = self.settings.mcp, self.settings.appearance.theme
        self.settings = self.services.layer_saved(settings).effective
        if self.settings.appearance.theme != theme_before:
            self.theme_changed.emit(self.settings.appearance.theme)
        self.saved = settings
        if self.settings.mcp != mcp_before and mcp_now:  # servers added, changed or removed: (re)start them now
            effective, assembly = self.settings, self.assembly

            def restart() -> None:
                self.tasks.run(lambda _task: assembly.mcp(effective), key="mcp-start")

            if self.busy:  # every server restarts: not under a tool call of the turn running (a focus-in mid-turn)
                self._after_turn.append(restart)
            else:
                restart()
        self.settings_changed.emit()
        self.refresh_models()

    def settings_for_dialog(self) -> Settings:
        """What the dialog edits: the saved settings, but with the Ollama host in use — with
        ``OLLAMA_HOST`` set, the saved host is not the one the window talks to, and testing it would
        report a failure while chats work (the dialog says where the host comes from)."""
        base = self.saved or self.settings
        if base.ollama.host != self.settings.ollama.host:
            base = base.updated({"ollama.host": self.settings.ollama.host})
        return base

    def refresh_models(self, then: Callable[[], None] | None = None) -> None:
        """List the server's models in the background (see :mod:`desktop_agent.ui.model_listing`); ``then``
        runs on the GUI thread once the listing has ended, whether it worked or not."""
        if not self.closing:
            self.listing.refresh(then)

    def recheck(self) -> None:
        if not self.closing and not self.runner.busy:
            self.refresh_models()

    def _on_models_listed(self, models: list[str], version: str) -> None:
        chat = self.chat_settings
        current = chat.model
        if current not in models and f"{current}:latest" in models:
            # Ollama's name for the same model: use it everywhere (picker, status bar, answers) for
            # this session, so the window never shows two names for one model; the file is unchanged
            current = f"{current}:latest"
            if (chat.backend, chat.model) == (self.settings.backend, self.settings.model):
                self.settings = self.settings.updated({self.settings.model_field: current})
            if chat.model_field in self.conversation.options:  # the chat's own model: the same, by its full name
                self.conversation.options = {**self.conversation.options, chat.model_field: current}
        self.models_listed.emit(models, current)
        own = bool(self.conversation.messages) or chat.model_field in self.conversation.options
        missing = bool(models) and current not in models and own
        self.chat_model_missing.emit(current if missing else "")
        self.server_online.emit(version)
        self.settings_changed.emit()

    def _on_listing_failed(self, error: BaseException) -> None:
        self.server_problem.emit(ui_errors.status_label(error), ui_errors.one_line(error))

    def pull_model(self, name: str, card: Any = None) -> None:
        """``ollama pull`` through the one pull controller, with progress and Cancel on the error card (any
        object with ``set_progress``/``set_busy``/``cancel_requested``); the turn is retried when the model
        is there — if its chat is still the one shown."""
        if not self.pull.start(self.settings, name):
            self.status.emit(f"Another model is being pulled ({self.pull.model}).", 5000)
            return
        chat_id = self.session.id
        shown: list[Any] = [card] if card is not None else []  # emptied when the card goes away
        if card is not None:
            card.destroyed.connect(lambda *_: shown.clear())
        connections: list[Any] = []

        def progress(status: str, done: int | None, total: int | None) -> None:
            for c in shown:
                pct = f" {100 * (done or 0) / total:.0f}%" if total else ""
                c.set_progress(f"{status}{pct}", done, total)

        def end(text: str, then: Callable[[], None] | None = None) -> None:
            for signal, slot in connections:
                signal.disconnect(slot)
            for c in shown:
                c.set_busy(False)
            self.status.emit(text, 8000)
            if then is not None:
                then()

        def finished(model: str) -> None:
            def retry() -> None:
                self.update_settings({"ollama.model": model})
                if self.session.id == chat_id and shown:
                    # list the models first: the retried turn then uses the name the server lists
                    # ("name:latest"), the one the picker and the status bar show
                    self.refresh_models(then=self.retry)

            end(translate("Controller", "Pulled {model}.").format(model=model), retry)

        for signal, slot in ((self.pull.progress, progress), (self.pull.finished, finished),
                             (self.pull.failed, lambda text: end(translate("Controller", "Pull failed: {text}").format(
                                     text=text))),
                             (self.pull.cancelled, lambda: end(translate("Controller",
                                     "Stopped pulling {name}.").format(name=name)))):
            signal.connect(slot)
            connections.append((signal, slot))
        if card is not None:
            card.set_busy(True)
            card.set_progress(translate("Controller", "Pulling {name}…").format(name=name))
            card.cancel_requested.connect(self.pull.cancel)

    # ---- closing ---------------------------------------------------------------------------------

    def shutdown(self) -> bool:
        """Stop background work: cancel the turn (its partial answer is saved as interrupted), wait for the
        worker (≤ 2.5 s, never terminate), stop pulls, close the store."""
        self.closing = True
        self.listing.closed = True
        self.pull.cancel()
        clean = self.runner.shutdown(2.5)
        self.tasks.close()
        if clean and self.store:
            try:
                self.store.close()
            except Exception:
                log.warning("closing the store failed", exc_info=True)
        return clean


def _clip(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
