"""The chat's quick options, one line above the composer: tools on/off, which tools, temperature, think, JSON.

:class:`ChatOptions` shows the options of the chat on screen over the defaults from Settings
(:meth:`ChatOptions.show_options`) and says what the user changed through ONE signal,
``options_changed(dict)``: the chat's whole option dict (dotted setting keys, see
:data:`~desktop_agent.core.settings.CHAT_OPTION_KEYS`). A control shows the default while the chat has no
override of it, and setting it back to the default removes the override, so a chat follows later changes of
Settings in everything it did not change itself. It changes no settings and saves nothing itself.

The tools menu lists the tools the assembly loads for the current settings; they are listed on a background
thread (the window's :class:`~desktop_agent.ui.tasks.TaskRunner`) the first time the menu opens, and again
only when the tool settings (folders, limits) change.

When the chat offers tools but the model gets none — its server says it cannot use them, or the app learned that
it answers nothing when offered them (:mod:`desktop_agent.core.capabilities`) — the Tools button says so and
why ("Tools: off for smollm2", a warning icon, the reason in its tooltip), and the menu has *Offer tools anyway*
(the chat option ``tools.offer_anyway``). The menu's *Use this tool for the next message* picks one tool that the
next message must use (``--tool-choice NAME`` in the terminal): a chip "next: NAME ×" shows it until the message
is sent (:meth:`ChatOptions.take_next_tool`) or the × is pressed. It is not an option of the chat: it is gone
with the next message.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QResizeEvent
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QMenu,
    QSizePolicy,
    QSpacerItem,
    QToolButton,
    QWidget,
)

from desktop_agent.core.assembly import Assembly, offers_tools_anyway, tools_off_reason
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.model_info import ModelFacts
from desktop_agent.core.settings import Settings, chat_options
from desktop_agent.ui import icons, theme
from desktop_agent.ui.chat.menus import TemperatureBox, ToolsMenu, keep_on_screen
from desktop_agent.ui.i18n import translate, translate_text
from desktop_agent.ui.tasks import Task, TaskRunner

log = logging.getLogger(__name__)

#: the Think choices: label, value of ``generation.think``
THINK_CHOICES: tuple[tuple[str, bool | None], ...] = (
    (QT_TRANSLATE_NOOP("ChatOptions", "Model default"), None), (QT_TRANSLATE_NOOP("ChatOptions", "On"), True),
    (QT_TRANSLATE_NOOP("ChatOptions", "Off"), False))
#: the longest model name the Tools button shows (a longer one is cut with "…"; the tooltip has it whole)
SHOWN_MODEL_CHARS = 20


def _action(menu: QMenu, text: str) -> QAction:
    """A new action at the end of ``menu``, made from Python: a ``QAction`` that ``menu.addAction(text)`` makes in
    C++ has a Python side PySide may invalidate while the action lives on (when a widget its parent-tracking
    files the menu's owner under is deleted — here the chat's stand-in, once the chat view took its place), and
    the next ``setChecked`` raised "Internal C++ object (QAction) already deleted" at the end of a turn."""
    action = QAction(text, menu)
    menu.addAction(action)
    return action


def short_model(name: str) -> str:
    """``name`` as the Tools button shows it: at most :data:`SHOWN_MODEL_CHARS` characters."""
    return name if len(name) <= SHOWN_MODEL_CHARS else name[: SHOWN_MODEL_CHARS - 1] + "…"


class ChatOptions(QWidget):
    """The strip of per-chat options (see the module docstring). ``assembly`` lists the tools, ``tasks`` runs
    that listing off the GUI thread."""

    #: the chat's option dict after the user changed one (dotted keys; empty = all defaults)
    options_changed = Signal(dict)
    #: the tools menu got its list of tools (names), or an empty list when listing them failed
    tools_listed = Signal(list)
    #: the tool chosen for the next message ("" when none is)
    next_tool_changed = Signal(str)

    def __init__(self, assembly: Assembly, tasks: TaskRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("chatOptions")
        self.setAccessibleName(translate("ChatOptions", "Chat options"))
        self.assembly = assembly
        self.tasks = tasks
        self._defaults = Settings()
        self._options: dict[str, Any] = {}
        #: the tools to choose from: (name, description), None until listed
        self._tools: list[tuple[str, str]] | None = None
        self._tools_key: Any = None
        self._tools_error = ""
        self.tool_actions: dict[str, QAction] = {}
        #: what each server said its models can do (model name → facts), from the window's model listing
        self._facts: dict[str, ModelFacts] = {}
        #: why the model gets no tools although the chat offers them (None: it gets them, or anyway)
        self.tools_off: str | None = None
        self._reason: str | None = None  # the same before Offer tools anyway
        self._model = ""
        self._level = 0  # how far the strip is folded (see _fold)
        self._next_tool: str | None = None
        #: the menu's "Use this tool for the next message" choices (tool name → action), and Offer tools anyway
        self.next_tool_actions: dict[str, QAction] = {}
        self.anyway_action: QAction | None = None
        self._choose_action: QAction | None = None

        self.tools_button = QToolButton()
        self.tools_button.setObjectName("chatToolsToggle")
        self.tools_button.setText(translate("ChatOptions", "Tools"))
        self.tools_button.setCheckable(True)
        self.tools_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.tools_button.setAccessibleName(translate("ChatOptions", "Tools"))
        self.tools_button.toggled.connect(lambda on: self._change("tools.enabled", on))

        self.tools_menu = ToolsMenu(self)
        self.tools_menu.setToolTipsVisible(True)
        self.tools_menu.aboutToShow.connect(self._menu_opening)
        self.tools_menu_button = QToolButton()
        self.tools_menu_button.setObjectName("chatToolsMenu")
        self.tools_menu_button.setMenu(self.tools_menu)
        self.tools_menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.tools_menu_button.setAccessibleName(translate("ChatOptions", "Choose the tools"))
        self.tools_menu_button.setToolTip(translate("ChatOptions", "Choose which tools this chat offers the model"))

        self.next_tool_chip = QToolButton()
        self.next_tool_chip.setObjectName("chatNextTool")
        self.next_tool_chip.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.next_tool_chip.clicked.connect(lambda: self.set_next_tool(None))
        self.next_tool_chip.setHidden(True)

        self.temperature = TemperatureBox()
        self.temperature.setObjectName("chatTemperature")
        self.temperature.setRange(0.0, 2.0)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(2)
        self.temperature.setKeyboardTracking(False)  # one change per step or finished edit, not per keystroke
        self.temperature.setButtonSymbols(QDoubleSpinBox.ButtonSymbols.NoButtons)  # minus and plus buttons beside it
        self.temperature.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.temperature.setAccessibleName(translate("ChatOptions", "Temperature"))
        self.temperature.setFixedWidth(self.temperature.fontMetrics().horizontalAdvance("0.00") + 12)
        self.temperature.valueChanged.connect(lambda v: self._change("generation.temperature", round(v, 2)))
        self.temperature.installEventFilter(self)
        self.cooler = self._step_button("\u2212", translate("ChatOptions", "Lower the temperature by 0.1"),
                self.temperature.stepDown)
        self.warmer = self._step_button("+", translate("ChatOptions", "Raise the temperature by 0.1"),
                self.temperature.stepUp)
        self.temperature_box = QFrame()
        self.temperature_box.setObjectName("chatTemperatureBox")
        box = QHBoxLayout(self.temperature_box)
        box.setContentsMargins(2, 0, 2, 0)
        box.setSpacing(0)
        for w in (self.cooler, self.temperature, self.warmer):
            box.addWidget(w)
        temperature_label = QLabel(translate("ChatOptions", "Temperature"))
        temperature_label.setBuddy(self.temperature)

        self.think_menu = QMenu(self)
        group = QActionGroup(self.think_menu)
        self.think_actions: dict[bool | None, QAction] = {}
        for label, value in THINK_CHOICES:
            action = _action(self.think_menu, translate("ChatOptions", label))
            action.setCheckable(True)
            group.addAction(action)
            action.triggered.connect(lambda _on=False, v=value: self._change("generation.think", v))
            self.think_actions[value] = action
        self.think = QToolButton()
        self.think.setObjectName("chatThink")
        self.think.setMenu(self.think_menu)
        self.think.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        think_label = QLabel(translate("ChatOptions", "Think"))
        think_label.setBuddy(self.think)

        self.json_button = QToolButton()
        self.json_button.setObjectName("chatJson")
        self.json_button.setText("JSON")
        self.json_button.setCheckable(True)
        self.json_button.setAccessibleName(translate("ChatOptions", "JSON format"))
        self.json_button.toggled.connect(lambda on: self._change("generation.format", "json" if on else None))

        # in a narrow window JSON and Think fold away into this menu rather than disappear
        self.more_menu = QMenu(self)
        self.more_json = _action(self.more_menu, translate("ChatOptions", "JSON answers"))
        self.more_json.setCheckable(True)
        self.more_json.toggled.connect(self.json_button.setChecked)
        self.json_button.toggled.connect(self.more_json.setChecked)
        self.more_menu.addMenu(self.think_menu)
        self.think_menu.setTitle(translate("ChatOptions", "Think"))  # (its entry in the ⋯ menu)
        self.more_button = QToolButton()
        self.more_button.setObjectName("chatMore")
        self.more_button.setText("⋯")
        self.more_button.setMenu(self.more_menu)
        self.more_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.more_button.setAccessibleName(translate("ChatOptions", "More chat options"))
        self.more_button.setToolTip(translate("ChatOptions", "The options that do not fit: JSON answers, Think"))
        self.more_button.setHidden(True)

        self.labels = (temperature_label, think_label)
        row = self._row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 4, 0)
        row.setSpacing(4)
        row.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)  # narrow: see minimumSizeHint and _fit
        self._gaps = [QSpacerItem(12, 0, QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Minimum) for _ in range(3)]
        row.addWidget(self.tools_button)
        row.addWidget(self.tools_menu_button)
        row.addWidget(self.next_tool_chip)
        row.addSpacerItem(self._gaps[0])
        row.addWidget(temperature_label)
        row.addWidget(self.temperature_box)
        row.addSpacerItem(self._gaps[1])
        row.addWidget(think_label)
        row.addWidget(self.think)
        row.addSpacerItem(self._gaps[2])
        row.addWidget(self.json_button)
        row.addWidget(self.more_button)
        row.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        for w in (self.tools_button, self.tools_menu_button, self.next_tool_chip, self.temperature, self.think,
                  self.json_button, self.more_button):
            w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # reachable with Tab
        QWidget.setTabOrder(self.tools_button, self.tools_menu_button)
        QWidget.setTabOrder(self.tools_menu_button, self.next_tool_chip)
        QWidget.setTabOrder(self.next_tool_chip, self.temperature)
        QWidget.setTabOrder(self.temperature, self.think)
        QWidget.setTabOrder(self.think, self.json_button)
        QWidget.setTabOrder(self.json_button, self.more_button)
        self.restyle()
        self._display()

    # ---- size: one line; in a narrow window the labels give way first, then the controls on the right ----

    #: how far the strip is folded: 0 = everything shown … 5 = only the tools buttons
    FOLDS = 5

    def _fold(self, level: int) -> None:
        """Show the strip folded to ``level`` (see :attr:`FOLDS`)."""
        self._level = level
        for label in self.labels:
            label.setHidden(level >= 1)
        self._show_tools_text()
        for gap in self._gaps:
            gap.changeSize(4 if level >= 2 else 12, 0, QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Minimum)
        self.json_button.setHidden(level >= 3)
        self.think.setHidden(level >= 4)
        self.more_json.setVisible(level >= 3)
        self.more_think.setVisible(level >= 4)
        self.more_button.setHidden(level < 3)
        self.temperature_box.setHidden(level >= 5)
        self._show_think(self.effective().generation.think)
        self._row.invalidate()

    def _fit(self) -> None:
        """The least folded strip that fits in the width it has, placed now: laid out later, the strip's
        first paint showed the controls where the hidden labels left gaps, then they snapped left."""
        for level in range(self.FOLDS + 1):
            self._fold(level)
            if self._row.sizeHint().width() <= self.width():
                break
        self._row.activate()

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        margins = self._row.contentsMargins()
        width = self.tools_button.iconSize().width() + self.tools_menu_button.sizeHint().width() * 2
        return QSize(width + margins.left() + margins.right(), hint.height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _show_think(self, value: bool | None) -> None:
        """The Think button's text: the choice, and "Think" itself when its label gave way."""
        choice = translate("ChatOptions", dict((v, k) for k, v in THINK_CHOICES)[value])
        short = translate("ChatOptions", "default") if value is None else choice.lower()
        shown = translate("ChatOptions", "Think: {short}").format(short=short) if self.labels[1].isHidden() else choice
        self.think.setText(f"{shown} ▾")
        self.think.setAccessibleName(translate("ChatOptions", "Think: {choice}").format(choice=choice))

    def _step_button(self, text: str, tip: str, step: Any) -> QToolButton:
        button = QToolButton()
        button.setObjectName("chatStep")
        button.setText(text)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keyboard steps with Up and Down in the box
        button.setAutoRepeat(True)
        button.clicked.connect(step)
        return button

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.temperature and event.type() in (QEvent.Type.FocusIn, QEvent.Type.FocusOut):
            self._repolish(self.temperature_box, "focused", event.type() == QEvent.Type.FocusIn)
        return super().eventFilter(watched, event)

    @staticmethod
    def _repolish(widget: QWidget, name: str, value: bool) -> None:
        if widget.property(name) != value:
            widget.setProperty(name, value)
            widget.style().unpolish(widget)
            widget.style().polish(widget)

    # ---- showing ---------------------------------------------------------------------------------

    @property
    def more_think(self) -> QAction:
        """The Think entry of the ⋯ menu (looked up each time: see :func:`_action`)."""
        return self.think_menu.menuAction()

    @property
    def options(self) -> dict[str, Any]:
        """The chat's options as shown (a copy)."""
        return dict(self._options)

    def show_options(self, settings: Settings, options: dict[str, Any]) -> None:
        """Show the chat's ``options`` over ``settings`` (the defaults every chat starts from); emits nothing."""
        self._defaults = settings
        self._options = chat_options(options)
        self._display()

    def effective(self) -> Settings:
        """The settings the chat's next turn uses, as shown."""
        return self._defaults.updated(self._options) if self._options else self._defaults

    def set_model_facts(self, facts: dict[str, ModelFacts]) -> None:
        """What the server says its models can do (from the window's model listing): a model that cannot use
        tools shows on the Tools button."""
        self._facts.update(facts)
        self._display()

    def refresh(self) -> None:
        """Show again what was learned about the model (after a turn, or a Forget in Settings)."""
        self._display()

    # ---- the tool for the next message -------------------------------------------------------------

    @property
    def next_tool(self) -> str | None:
        """The tool the next message must use (None: the model chooses)."""
        return self._next_tool

    def set_next_tool(self, name: str | None) -> None:
        """Make the next message use tool ``name`` (None: let the model choose again); the chip shows it."""
        name = name or None
        if name == self._next_tool:
            return
        self._next_tool = name
        self._show_next_tool()
        self.next_tool_changed.emit(name or "")

    def take_next_tool(self) -> str | None:
        """The tool the message being sent must use, and the chip goes (None: no tool was chosen)."""
        name = self._next_tool
        self.set_next_tool(None)
        return name

    def _show_next_tool(self) -> None:
        chip, name = self.next_tool_chip, self._next_tool
        chip.setHidden(name is None)
        if name is not None:
            chip.setText(translate("ChatOptions", "next: {name} ×").format(name=name))
            chip.setToolTip(translate("ChatOptions",
                    "The next message must use the tool {name} (what --tool-choice {name} does in the terminal); "
                    "later messages let the model choose again. Click to let it choose now.").format(name=name))
            chip.setAccessibleName(translate("ChatOptions",
                    "Next message uses {name}; press to let the model choose").format(name=name))
        for tool, action in self.next_tool_actions.items():
            action.blockSignals(True)
            action.setChecked(tool == name)
            action.blockSignals(False)
        if self.isVisible():
            self._fit()

    def _display(self) -> None:
        eff = self.effective()
        gen = eff.generation
        widgets: tuple[QWidget, ...] = (self.tools_button, self.temperature, self.json_button)
        for w in widgets:
            w.blockSignals(True)
        try:
            self.tools_button.setChecked(eff.tools.enabled)
            self.temperature.setValue(gen.temperature)
            self.json_button.setChecked(gen.format == "json")
        finally:
            for w in widgets:
                w.blockSignals(False)
        self.think_actions[gen.think].setChecked(True)
        self._show_think(gen.think)
        self._update_tool_checks()
        ollama = eff.backend == "ollama"
        self.think.setEnabled(ollama)
        self.json_button.setEnabled(ollama)
        d = self._defaults
        self._show_tools_state(eff)
        self._mark(self.tools_button, "tools.enabled", self._tools_tip(eff),
                   translate("ChatOptions", "on") if d.tools.enabled else translate("ChatOptions", "off"))
        disabled = eff.tools.disabled
        self._mark(self.tools_menu_button, "tools.disabled",
                   translate("ChatOptions", "Choose which tools this chat offers the model")
                   + (translate("ChatOptions", " ({count} left out)").format(count=len(
                           disabled)) if disabled else ""),
                   ", ".join(d.tools.disabled) + translate("ChatOptions",
                           " left out") if d.tools.disabled else translate("ChatOptions", "all tools"))
        self._mark(self.temperature, "generation.temperature",
                   translate("ChatOptions",
                           "Temperature of the answers in this chat: 0 = focused, higher = more varied"),
                   self.temperature.textFromValue(d.generation.temperature))
        only_ollama = "" if ollama else translate("ChatOptions",
                " — Ollama only; the OpenAI-compatible backend does not use it")
        self._mark(self.think, "generation.think",
                   translate("ChatOptions",
                           "Whether the model thinks before it answers (models that can)") + only_ollama,
                   translate("ChatOptions", dict((v, k) for k, v in THINK_CHOICES)[d.generation.think]).lower())
        self._mark(self.json_button, "generation.format",
                   translate("ChatOptions", "Ask the model to answer in JSON (Ollama's format: json)") + only_ollama,
                   translate("ChatOptions", "on") if d.generation.format == "json" else translate("ChatOptions", "off"))

    def _show_tools_state(self, eff: Settings) -> None:
        """The Tools button's text and icon: "Tools", or "Tools: off for MODEL" with a warning icon when the chat
        offers tools but the model gets none (see the module docstring)."""
        reason = None
        if eff.tools.enabled:
            try:
                reason = tools_off_reason(eff, self._facts.get(eff.model))
                reason = translate_text(reason) if reason else reason
            except OSError:  # the cache folder cannot be read: nothing learned shows
                log.warning("could not read what was learned about the model", exc_info=True)
        self._reason = reason
        anyway = offers_tools_anyway(eff)
        self.tools_off = None if anyway else reason
        th = theme.current()
        self._model = eff.model
        if self.tools_off is not None:
            self.tools_button.setIcon(icons.icon("warning", th.warn))
            self.tools_button.setAccessibleName(translate("ChatOptions", "Tools: off for {model}").format(
                    model=eff.model))
        else:
            self.tools_button.setIcon(icons.icon("tool", th.muted))
            self.tools_button.setAccessibleName(translate("ChatOptions", "Tools"))
        self._repolish(self.tools_button, "blocked", self.tools_off is not None)
        before = self.tools_button.text()
        self._show_tools_text()
        if self.tools_button.text() != before and self.isVisible():
            self._fit()  # a longer or shorter button: fold the strip again
        if self.anyway_action is not None:
            self._update_anyway_action()

    def _show_tools_text(self) -> None:
        """The Tools button's text as the fold allows: "Tools: off for MODEL", folded "Tools: off" (the icon alone when
        tools are not off: the warning must not fold away)."""
        folded = self._level >= 2
        if self.tools_off is not None:
            self.tools_button.setText(translate("ChatOptions", "Tools: off") if folded else translate("ChatOptions",
                    "Tools: off for {short_model}").format(short_model=short_model(self._model)))
            style = Qt.ToolButtonStyle.ToolButtonTextBesideIcon
        else:
            self.tools_button.setText(translate("ChatOptions", "Tools"))
            style = Qt.ToolButtonStyle.ToolButtonIconOnly if folded else Qt.ToolButtonStyle.ToolButtonTextBesideIcon
        self.tools_button.setToolButtonStyle(style)

    def _tools_tip(self, eff: Settings) -> str:
        if not eff.tools.enabled:
            return translate("ChatOptions", "Tools are off in this chat")
        if self.tools_off is not None:
            return (translate("ChatOptions",
                    "Tools are off for {model}: {tools_off}, so this chat's messages go without them.\nThe Tools "
                    "menu's Offer tools anyway offers them all the same; Settings → Tools → Learned forgets what was "
                    "learned.").format(model=eff.model, tools_off=self.tools_off))
        if self._reason is not None:
            return translate("ChatOptions",
                    "Offer tools to the model in this chat — offered anyway, although {reason}").format(
                            reason=self._reason)
        return translate("ChatOptions", "Offer tools to the model in this chat")

    def _mark(self, widget: QWidget, key: str, tip: str, default: str) -> None:
        """Tooltip and look of a control: whether the chat overrides the default, and what the default is."""
        overridden = key in self._options
        if overridden:
            widget.setToolTip(translate("ChatOptions", "{tip}\nThis chat only; Settings say {default}.").format(
                    tip=tip, default=default))
        else:
            widget.setToolTip(translate("ChatOptions", "{tip}\nThe default from Settings ({default}).").format(tip=tip,
                    default=default))
        self._repolish(widget, "override", overridden)

    # ---- changing --------------------------------------------------------------------------------

    def _change(self, key: str, value: Any) -> None:
        """The user set ``key`` to ``value``: an override, or none when it is the default again."""
        default = self._defaults.get(key)
        if key == "tools.disabled":
            same = set(value) == set(default)
        elif key == "generation.temperature":
            same = abs(float(value) - float(default)) < 1e-9
        else:
            same = value == default
        options = dict(self._options)
        if same:
            options.pop(key, None)
        else:
            options[key] = value
        options = chat_options(options)
        if options == self._options:
            return
        self._options = options
        self._display()
        self.options_changed.emit(dict(options))

    def _tool_toggled(self, name: str, offered: bool) -> None:
        disabled = [n for n in self.effective().tools.disabled if n != name]
        if not offered:
            disabled.append(name)
        order = [n for n, _ in self._tools or ()]
        disabled.sort(key=lambda n: order.index(n) if n in order else len(order))
        self._change("tools.disabled", disabled)

    def _offer_all(self) -> None:
        self._change("tools.disabled", [])

    # ---- the tools menu --------------------------------------------------------------------------

    def _tool_settings_key(self) -> Any:
        """What the listed tools depend on: the tool settings, and the assembly's reloads (Settings → Tools)."""
        return self._defaults.tools.model_copy(update={"enabled": True, "disabled": []}), self.assembly.tools_generation

    def _menu_opening(self) -> None:
        if self._tools is None or self._tools_key != self._tool_settings_key():
            self.list_tools()
        self._fill_menu()

    def list_tools(self) -> None:
        """List the tools for the current settings in the background; the menu fills in when they arrive."""
        key = self._tool_settings_key()
        settings = self._defaults
        self._tools_error = ""

        def work(_task: Task) -> list[tuple[str, str]]:
            return [(t.name, _first_line(t.description)) for t in self.assembly.available_tools(settings)]

        def done(result: list[tuple[str, str]] | None, error: BaseException | None) -> None:
            if error is not None:
                log.warning("could not list the tools", exc_info=error)
                self._tools_error = str(error) or type(error).__name__
                self._tools = None
            else:
                self._tools, self._tools_key = list(result or []), key
            self._fill_menu()
            self.tools_listed.emit([n for n, _ in self._tools or ()])

        if self._tools is None or self._tools_key != key:
            self._tools = None
        self.tasks.run(work, done, key="chat-options-tools")

    def _fill_menu(self) -> None:
        menu = self.tools_menu
        menu.clear()
        self.tool_actions = {}
        self.next_tool_actions = {}
        self.anyway_action = _action(menu, translate("ChatOptions", "Offer tools anyway"))
        self.anyway_action.setCheckable(True)
        self.anyway_action.toggled.connect(lambda on: self._change("tools.offer_anyway", on))
        self._update_anyway_action()
        menu.addSeparator()  # collapsed while Offer tools anyway is hidden
        if self._tools is None:
            text = translate("ChatOptions", "Could not list the tools: {tools_error}").format(
                    tools_error=self._tools_error) if self._tools_error else translate("ChatOptions",
                            "Listing the tools…")
            menu.addAction(text).setEnabled(False)
            return
        if not self._tools:
            menu.addAction("No tools are installed").setEnabled(False)
            return
        title = menu.addAction(translate("ChatOptions", "Tools this chat offers"))
        title.setEnabled(False)
        for name, description in self._tools:
            action = _action(menu, name)
            action.setCheckable(True)
            action.setToolTip(description or name)
            action.toggled.connect(lambda on, n=name: self._tool_toggled(n, on))
            self.tool_actions[name] = action
        menu.addSeparator()
        menu.addAction(translate("ChatOptions", "Offer all tools"), self._offer_all)
        self._fill_next_tool_menu(menu.addMenu(translate("ChatOptions", "Use this tool for the next message")))
        self._update_tool_checks()
        if menu.isVisible():  # it opened with "Listing the tools…" and grew: keep it on the screen
            keep_on_screen(menu, self.tools_menu_button)

    def _fill_next_tool_menu(self, sub: QMenu) -> None:
        """The tools the chat offers, one of which the next message must use (exclusive), and "the model
        chooses"."""
        sub.setToolTipsVisible(True)
        sub.menuAction().setToolTip(translate("ChatOptions",
                "What --tool-choice NAME does in the terminal, for one message"))
        group = QActionGroup(sub)
        choose = _action(sub, translate("ChatOptions", "The model chooses"))
        choose.setCheckable(True)
        group.addAction(choose)
        choose.triggered.connect(lambda: self.set_next_tool(None))
        sub.addSeparator()
        for name, description in self._tools or ():
            action = _action(sub, name)
            action.setCheckable(True)
            action.setToolTip(description or name)
            group.addAction(action)
            action.triggered.connect(lambda _on=False, n=name: self.set_next_tool(n))
            self.next_tool_actions[name] = action
        self._choose_action = choose

    def _update_anyway_action(self) -> None:
        """Offer tools anyway: shown while it matters (the model gets no tools, or the user offers them anyway),
        checked when offered anyway; fixed on when the model picker offers them to this model in every chat."""
        action = self.anyway_action
        if action is None:
            return
        eff = self.effective()
        everywhere = eff.model in eff.models.tools_anyway
        action.blockSignals(True)
        action.setChecked(offers_tools_anyway(eff))
        action.blockSignals(False)
        action.setVisible(eff.tools.enabled and (self._reason is not None or offers_tools_anyway(eff)))
        action.setEnabled(not everywhere)
        if everywhere:
            action.setToolTip(translate("ChatOptions",
                    "Offered to {model} in every chat (the model picker's Offer tools anyway)").format(model=eff.model))
        elif self._reason is not None:
            action.setToolTip(translate("ChatOptions", "Offer the tools in this chat although {reason}").format(
                    reason=self._reason))
        else:
            action.setToolTip(translate("ChatOptions",
                    "Offer the tools in this chat whatever the model's server says or the app learned"))

    def _update_tool_checks(self) -> None:
        eff = self.effective()
        disabled = set(eff.tools.disabled)
        for name, action in self.tool_actions.items():
            action.blockSignals(True)
            action.setChecked(name not in disabled)
            action.blockSignals(False)
        for name, action in self.next_tool_actions.items():  # a tool the chat does not offer cannot be chosen
            action.setEnabled(eff.tools.enabled and name not in disabled)
            action.blockSignals(True)
            action.setChecked(name == self._next_tool)
            action.blockSignals(False)
        if self.next_tool_actions and self._choose_action is not None:
            self._choose_action.setChecked(self._next_tool is None)

    # ---- look ------------------------------------------------------------------------------------

    def restyle(self) -> None:
        th = theme.current()
        self.tools_button.setIcon(icons.icon("warning" if self.tools_off else "tool", th.warn if self.tools_off
                                             else th.muted))
        self.tools_menu_button.setIcon(icons.icon("chevron-down", th.muted))
        self.setStyleSheet(
            f"""
            QWidget#chatOptions QLabel {{ color: {th.muted}; }}
            QWidget#chatOptions QToolButton {{ color: {th.muted}; background: transparent;
                border: 1px solid {th.assistant_border}; border-radius: 8px; padding: 2px 8px; }}
            QWidget#chatOptions QToolButton#chatToolsMenu {{ padding: 2px 3px; }}
            QWidget#chatOptions QToolButton#chatToolsMenu::menu-indicator {{ image: none; width: 0; }}
            QWidget#chatOptions QToolButton:hover {{ border-color: {th.user_border}; }}
            QWidget#chatOptions QToolButton:checked {{ color: {th.text}; background: {th.user_bubble};
                border-color: {th.user_border}; }}
            QWidget#chatOptions QToolButton:focus {{ border-color: {th.accent}; }}
            QWidget#chatOptions QToolButton:disabled {{ color: {th.faint}; border-color: {th.faint}; }}
            QWidget#chatOptions QToolButton#chatThink {{ color: {th.text}; padding: 2px 8px; }}
            QWidget#chatOptions QToolButton#chatThink::menu-indicator {{ image: none; width: 0; }}
            QWidget#chatOptions QToolButton#chatMore::menu-indicator {{ image: none; width: 0; }}
            QWidget#chatOptions QFrame#chatTemperatureBox {{ border: 1px solid {th.assistant_border};
                border-radius: 8px; }}
            QWidget#chatOptions QFrame#chatTemperatureBox:hover {{ border-color: {th.user_border}; }}
            QWidget#chatOptions QFrame#chatTemperatureBox[focused="true"] {{ border-color: {th.accent}; }}
            QWidget#chatOptions QDoubleSpinBox {{ color: {th.text}; background: transparent; border: none;
                padding: 2px 0; }}
            QWidget#chatOptions QDoubleSpinBox::up-button, QWidget#chatOptions QDoubleSpinBox::down-button {{
                width: 0; height: 0; border: none; subcontrol-origin: margin; }}
            QWidget#chatOptions QToolButton#chatStep {{ border: none; padding: 0 5px; color: {th.muted}; }}
            QWidget#chatOptions QToolButton#chatStep:hover {{ color: {th.text}; }}
            QWidget#chatOptions *[override="true"] {{ font-weight: 600; }}
            QWidget#chatOptions QToolButton#chatToolsToggle[blocked="true"] {{ color: {th.warn};
                border-color: {th.warn}; background: transparent; }}
            QWidget#chatOptions QToolButton#chatNextTool {{ color: {th.text}; background: {th.user_bubble};
                border-color: {th.accent}; border-radius: 10px; }}
            """
        )


def _first_line(text: str) -> str:
    return (text or "").strip().split("\n", 1)[0]
