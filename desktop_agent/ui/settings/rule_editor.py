"""The dialog that adds or edits a permission rule (Settings → Tools → Permissions → Add… / Edit…): which tool
(the tools loaded now, or a name typed), what it applies to (any call, paths under a folder, commands starting
with a word, a host; an approval card's "these exact arguments" is kept when edited), and the policy."""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.tools.permissions import POLICIES, Rule, Scope
from desktop_agent.core.tools.rule_keys import tool_label
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import note_label, show

KINDS = {"tool": QT_TRANSLATE_NOOP("RuleEditor", "any call"),
         "path": QT_TRANSLATE_NOOP("RuleEditor", "paths under a folder"),
         "command": QT_TRANSLATE_NOOP("RuleEditor", "commands starting with a word"),
         "host": QT_TRANSLATE_NOOP("RuleEditor", "a host (web address)")}
ARGS = QT_TRANSLATE_NOOP("RuleEditor", "these exact arguments")
POLICY_WORDS = {"allow": QT_TRANSLATE_NOOP("RuleEditor", "allow"), "ask": QT_TRANSLATE_NOOP("RuleEditor", "ask"),
                "deny": QT_TRANSLATE_NOOP("RuleEditor", "deny")}


@dataclass(frozen=True)
class KnownTool:
    """A tool the editor offers: its ``name``, the ``key`` its rules are kept under, whether it is destructive."""

    name: str
    key: str
    destructive: bool = False


class RuleEditor(QDialog):
    """Edits ``rule`` (None: a new one) for one of ``tools``; :meth:`result_rule` after Accept gives
    ``(key, scope, policy)``."""

    def __init__(self, tools: list[KnownTool], rule: Rule | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(translate("RuleEditor", "Edit permission rule") if rule else translate(
                "RuleEditor", "Add permission rule"))
        self.tools = {t.name: t for t in tools}
        self.rule = rule
        layout = QVBoxLayout(self)
        form = QFormLayout()
        self.tool = QComboBox()
        self.tool.setEditable(True)
        self.tool.addItems(sorted(self.tools))
        self.tool.setAccessibleName(translate("RuleEditor", "Tool"))
        self.kind = QComboBox()
        for kind, words in KINDS.items():
            self.kind.addItem(translate("RuleEditor", words), kind)
        if rule is not None and rule.scope.kind == "args":
            self.kind.addItem(translate("RuleEditor", ARGS), "args")
        self.kind.setAccessibleName(translate("RuleEditor", "Applies to"))
        self.value = QLineEdit()
        self.value.setAccessibleName(translate("RuleEditor", "Folder, command or host"))
        self.policy = QComboBox()
        for policy in POLICIES:
            self.policy.addItem(translate("RuleEditor", POLICY_WORDS[policy]), policy)
        self.policy.setAccessibleName(translate("RuleEditor", "Policy"))
        form.addRow(translate("RuleEditor", "&Tool:"), self.tool)
        form.addRow(translate("RuleEditor", "&Applies to:"), self.kind)
        self.value_label = QLabel(translate("RuleEditor", "&Value:"))
        self.value_label.setBuddy(self.value)
        form.addRow(self.value_label, self.value)
        form.addRow(translate("RuleEditor", "&Policy:"), self.policy)
        layout.addLayout(form)
        self.error = note_label(translate("RuleEditor", "Rule problem"))
        layout.addWidget(self.error)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        if rule is not None:
            self.tool.setCurrentText(tool_label(rule.tool))
            self.kind.setCurrentIndex(max(0, self.kind.findData(rule.scope.kind)))
            self.value.setText(rule.scope.value or "")
            self.policy.setCurrentIndex(max(0, self.policy.findData(rule.policy)))
        self._kind_changed()
        self.setMinimumWidth(460)

    def _kind_changed(self) -> None:
        kind = self.kind.currentData()
        self.value.setEnabled(kind not in ("tool", "args"))
        self.value_label.setEnabled(kind not in ("tool", "args"))
        self.value.setPlaceholderText({"path": "/home/me/notes", "command": "git", "host": "example.com"}.get(
                kind, ""))

    def problem(self) -> str | None:
        """Why the rule as filled in cannot be kept, or None."""
        name, kind, value = self.tool.currentText().strip(), self.kind.currentData(), self.value.text().strip()
        if not name:
            return translate("RuleEditor", "Choose a tool.")
        if kind in ("path", "command", "host") and not value:
            return translate("RuleEditor", "Say which folder, command or host the rule is for.")
        if kind == "path" and not os.path.isabs(os.path.expanduser(value)):
            return translate("RuleEditor", "The folder must be a full path (starting with / or ~).")
        known = self.tools.get(name)
        if known is not None and known.destructive and kind == "tool" and self.policy.currentData() == "allow":
            return translate("RuleEditor", "{name} can change or delete things: it is never allowed for any call. "
                             "Give a folder, command or host.").format(name=name)
        return None

    def accept(self) -> None:
        problem = self.problem()
        if problem:
            show(self.error, problem, "err")
            return
        super().accept()

    def result_rule(self) -> tuple[str, Scope, str]:
        """``(key, scope, policy)`` as filled in (the key of a loaded tool, else the name typed)."""
        name, kind = self.tool.currentText().strip(), str(self.kind.currentData())
        known = self.tools.get(name)
        if known is not None:
            key = known.key
        elif self.rule is not None and tool_label(self.rule.tool) == name:
            key = self.rule.tool  # an MCP tool not loaded now keeps its server's identity
        else:
            key = name
        value = self.value.text().strip()
        if kind == "path":
            value = os.path.normpath(os.path.expanduser(value))
        scope = Scope("tool") if kind == "tool" else Scope(kind, self.rule.scope.value if kind == "args" and
                                                            self.rule is not None else value)
        return key, scope, str(self.policy.currentData())
