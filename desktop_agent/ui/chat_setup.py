"""The window's per-chat setup: presets for a new chat, the chat's own system prompt, and what its model does.

:class:`ChatSetup` joins the window (:class:`~desktop_agent.ui.main_window.MainWindow`) and its controller for:

- the presets (:mod:`desktop_agent.core.presets`): a menu on the toolbar's New chat button (New chat with Coder,
  Writer… and Edit presets…) and a row of buttons in the empty chat ("Start as: Plain · Coder · Writer ·
  Researcher") — a chat started from one gets its system prompt, model, temperature and tools;
- Chat → System prompt…: this chat's own prompt (a change is recorded in the chat); Chat → New chat as ▸;
- the notes the controller adds to the chat (model or system prompt changed) shown in the chat view;
- :class:`ModelMissingBar`: above the message box when the server does not have the chat's model, saying so, with
  a button to continue with another model. The chat stays as it is and can be read, searched and exported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core import presets as core_presets
from desktop_agent.ui import theme
from desktop_agent.ui.i18n import translate, translate_text

if TYPE_CHECKING:
    from desktop_agent.ui.controller import ChatController
    from desktop_agent.ui.main_window import MainWindow


class ModelMissingBar(QFrame):
    """"This chat's model is not on the server": shown by :meth:`show_model`, hidden by ``show_model("")``.
    ``use_requested`` carries the model to continue with."""

    use_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelMissing")
        self.setAccessibleName(translate("ChatSetup", "The chat's model is missing"))
        self.text = QLabel()
        self.text.setObjectName("modelMissingText")
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.use_button = QPushButton()
        self.use_button.setObjectName("modelMissingUse")
        self.dismiss_button = QPushButton(translate("ChatSetup", "Dismiss"))
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.use_button)
        lay.addWidget(self.dismiss_button)
        self.model = ""
        self._other = ""
        self.use_button.clicked.connect(lambda: self.use_requested.emit(self._other))
        self.dismiss_button.clicked.connect(self.hide)
        self.restyle()
        self.hide()

    def restyle(self) -> None:
        th = theme.current()
        self.setStyleSheet(f"QFrame#modelMissing {{ border: 1px solid {th.warn}; border-radius: 8px; }}")

    def show_model(self, model: str, other: str = "") -> None:
        """Say that the server does not have ``model`` (""): hide); ``other``: the model the button switches to."""
        self.model, self._other = model, other
        if not model:
            self.hide()
            return
        self.text.setText(translate("ChatSetup",
                "This chat used the model “{model}”, which the server does not have (any more). Your chat is kept: "
                "pick another model in the toolbar to go on.").format(model=model))
        self.use_button.setText(translate("ChatSetup", "Use {model}").format(model=other))
        self.use_button.setVisible(bool(other) and other != model)
        self.show()


class PromptDialog(QDialog):
    """Edit the system prompt of the chat on screen; ``default``: the Settings prompt (Use the default)."""

    def __init__(self, text: str, default: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("ChatSetup", "This chat's system prompt"))
        self.setObjectName("chatPromptDialog")
        lay = QVBoxLayout(self)
        note = QLabel(translate("ChatSetup",
                "What the model is told before this chat's messages. A change applies from the next message and is "
                "noted in the chat."))
        note.setWordWrap(True)
        lay.addWidget(note)
        self.edit = QPlainTextEdit(text)
        self.edit.setObjectName("chatPromptEdit")
        self.edit.setAccessibleName(translate("ChatSetup", "System prompt"))
        self.edit.setMinimumSize(480, 200)
        lay.addWidget(self.edit, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        default_button = buttons.addButton(translate("ChatSetup", "Use the default"),
                                           QDialogButtonBox.ButtonRole.ResetRole)
        default_button.setToolTip(translate("ChatSetup", "The system prompt of Settings → Generation"))
        default_button.clicked.connect(lambda: self.edit.setPlainText(default))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)


class ChatSetup(QObject):
    """See the module docstring. Built by the window once its controller and chat view are there."""

    def __init__(self, window: MainWindow, ctl: ChatController) -> None:
        super().__init__(window)
        self.window, self.ctl = window, ctl
        self._chosen = ""  # the preset of the new chat being opened (its id)
        self.active = ""  # the preset the empty chat on screen started as
        self._listed: tuple | None = None  # the presets the menus show (id, name)
        self.missing_bar = ModelMissingBar()
        window.compose_area.column.insertWidget(0, self.missing_bar)
        self.missing_bar.use_requested.connect(ctl.pick_model)
        self.prompt_action = QAction(translate("ChatSetup", "System &prompt…"), window)
        self.prompt_action.setToolTip(translate("ChatSetup", "This chat's own system prompt"))
        self.prompt_action.triggered.connect(lambda: self.edit_prompt())
        self.new_menu = QMenu(translate("ChatSetup", "New chat &as"), window)
        self.new_menu.setObjectName("newChatMenu")
        chat_menu = window.menuBar().findChild(QMenu, "chatMenu")
        if chat_menu is not None:  # Chat → New chat as ▸, System prompt…
            chat_menu.addSeparator()
            chat_menu.addMenu(self.new_menu)
            chat_menu.addAction(self.prompt_action)
        button = window.toolbar.widgetForAction(window.new_chat_action)
        if isinstance(button, QToolButton):
            button.setMenu(self.new_menu)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        window.chat.empty_state.preset_chosen.connect(self.start_with)
        ctl.chat_noted.connect(window.chat.add_note)
        ctl.chat_model_missing.connect(self._model_missing)
        ctl.chat_opened.connect(self._chat_opened)
        ctl.settings_changed.connect(self.refresh)
        window.restyle.connect(self.missing_bar.restyle)
        self.refresh()

    def refresh(self) -> None:
        """The presets as Settings have them now: the New chat menu and the empty chat's row."""
        presets = core_presets.all_presets(self.ctl.settings)
        key = tuple((p.id, p.name) for p in presets)
        if key == self._listed:  # (the settings change often — a model listing: the menu is not built again)
            return
        self._listed = key
        self.new_menu.clear()
        plain = self.new_menu.addAction(translate("ChatSetup", "Plain chat"))
        plain.triggered.connect(lambda: self.start_with(""))
        for p in presets:
            name = translate_text(core_presets.shown_name(p))
            action = self.new_menu.addAction(translate("ChatSetup", "New chat as {name}").format(name=name))
            action.setToolTip(translate("ChatSetup", "A new chat with the system prompt, model and tools of {name}")
                              .format(name=name))
            action.triggered.connect(lambda _=False, pid=p.id: self.start_with(pid))
        self.new_menu.addSeparator()
        edit = self.new_menu.addAction(translate("ChatSetup", "Edit presets…"))
        edit.triggered.connect(lambda: self.window.open_settings(tab=translate("Dialog", "Presets")))
        self.window.chat.empty_state.set_presets([(p.id, translate_text(core_presets.shown_name(p)))
                                                  for p in presets], self.active)

    def start_with(self, preset_id: str) -> None:
        """A new chat with the preset ``preset_id`` ("": none) — the empty chat on screen takes it at once."""
        preset = next((p for p in core_presets.all_presets(self.ctl.settings) if p.id == preset_id), None)
        self._chosen = preset.id if preset is not None else ""
        self.window.new_chat(preset=preset)

    def _chat_opened(self, conversation: Any, _decisions: Any) -> None:
        self.active, self._chosen = self._chosen, ""
        for pid, b in self.window.chat.empty_state.preset_buttons.items():
            b.setChecked(pid == self.active)

    def edit_prompt(self, text: str | None = None) -> bool:
        """Edit the chat's system prompt (``text``: set it without the dialog). True when it changed."""
        if text is None:
            dialog = PromptDialog(self.ctl.chat_settings.loop.system_prompt, self.ctl.settings.loop.system_prompt,
                                  self.window)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return False
            text = dialog.edit.toPlainText()
        return self.ctl.set_system_prompt(text)

    def _model_missing(self, model: str) -> None:
        available = list(self.window.picker.available)
        default = self.ctl.settings.model
        other = default if default in available and default != model else next(
            (m for m in available if m != model), "")
        self.missing_bar.show_model(model, other)
        if model:
            self.window.statusBar().showMessage(translate("ChatSetup",
                    "This chat's model “{model}” is not on the server.").format(model=model), 10000)
