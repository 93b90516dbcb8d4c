"""Beside the model picker: what the chosen model can do (tools, thinking, vision — as its server says), and,
for a model that cannot use tools or think, the user's way to offer them anyway."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QToolButton, QWidget

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.model_info import SHOWN_CAPABILITIES, ModelFacts
from desktop_agent.ui.i18n import translate

#: a capability as the server names it → how the window names it (translated where shown)
CAPABILITY_NAMES = {
    "tools": QT_TRANSLATE_NOOP("ModelCapabilities", "tools"),
    "thinking": QT_TRANSLATE_NOOP("ModelCapabilities", "thinking"),
    "vision": QT_TRANSLATE_NOOP("ModelCapabilities", "vision"),
}


def capabilities_text(facts: ModelFacts | None) -> str:
    """``tools · thinking``; ``no tools`` for a model known to have none of them; empty when unknown."""
    if facts is None or facts.capabilities is None:
        return ""
    shown = facts.shown()
    if not shown:
        return translate("ModelCapabilities", "no tools")
    return " · ".join(translate("ModelCapabilities", CAPABILITY_NAMES.get(what, what)) for what in shown)


def capabilities_tooltip(name: str, facts: ModelFacts | None) -> str:
    if facts is None or facts.capabilities is None:
        return translate("ModelCapabilities", "The server does not say what {name} can do.").format(name=name)
    lines = [translate("ModelCapabilities", "{name}, as its server says:").format(name=name)]
    for what in SHOWN_CAPABILITIES:
        mark = "✓" if what in facts.capabilities else "✗"
        lines.append(f"  {mark} {translate('ModelCapabilities', CAPABILITY_NAMES.get(what, what))}")
    if facts.context_length:
        lines.append(translate("ModelCapabilities", "Context window: {context_length:,} tokens").format(
                context_length=facts.context_length))
    return "\n".join(lines)


class ModelCapabilities(QWidget):
    """Shows the facts of the chosen model; :attr:`anyway_changed` ``(what, model, on)`` when the user turns
    ``tools`` / ``thinking`` back on (or off again) for a model that its server says cannot use it."""

    anyway_changed = Signal(str, str, bool)
    #: ``(model, facts or None)``: the model shown, and what is known of it (the compose box's images need vision)
    shown = Signal(str, object)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setAccessibleName(translate("ModelCapabilities", "What the model can do"))
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 0, 0, 0)
        row.setSpacing(4)
        self.label = QLabel()
        self.label.setObjectName("modelCapabilities")
        self.label.setStyleSheet("color: palette(placeholder-text);")
        self.button = QToolButton()
        self.button.setText("…")
        self.button.setToolTip(translate("ModelCapabilities", "Offer tools or thinking to this model anyway"))
        self.button.setAccessibleName(translate("ModelCapabilities", "Model capability options"))
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu = QMenu(self)
        self.tools_anyway = QAction(translate("ModelCapabilities", "Offer tools anyway"), self, checkable=True)
        self.think_anyway = QAction(translate("ModelCapabilities", "Ask it to think anyway"), self, checkable=True)
        self.tools_anyway.toggled.connect(lambda on: self._changed("tools", on))
        self.think_anyway.toggled.connect(lambda on: self._changed("thinking", on))
        self.menu.addAction(self.tools_anyway)
        self.menu.addAction(self.think_anyway)
        self.button.setMenu(self.menu)
        row.addWidget(self.label)
        row.addWidget(self.button)
        self.facts: dict[str, ModelFacts] = {}
        self.model = ""
        self.show_model("", [], [])

    def set_facts(self, facts: dict[str, ModelFacts]) -> None:
        self.facts.update(facts)

    def show_model(self, name: str, tools_anyway: list[str], think_anyway: list[str]) -> None:
        """Show ``name``'s facts; the "anyway" choices from the settings' lists."""
        self.model = name
        facts = self.facts.get(name)
        self.label.setText(capabilities_text(facts))
        tip = capabilities_tooltip(name, facts)
        self.label.setToolTip(tip)
        self.setToolTip(tip)
        lacks_tools = facts is not None and not facts.can("tools")
        lacks_thinking = facts is not None and facts.capabilities is not None and not facts.can("thinking")
        for action, lacks, chosen in ((self.tools_anyway, lacks_tools, name in tools_anyway),
                                      (self.think_anyway, lacks_thinking, name in think_anyway)):
            action.blockSignals(True)
            action.setVisible(lacks)
            action.setChecked(chosen)
            action.blockSignals(False)
        self.button.setVisible(lacks_tools or lacks_thinking)
        self.setVisible(bool(self.label.text()))
        self.shown.emit(name, facts)

    def _changed(self, what: str, on: bool) -> None:
        if self.model:
            self.anyway_changed.emit(what, self.model, on)
