"""Settings → Tools → Permission rules (folded until opened, so the page stays short): every rule the permission
engine holds — tool, what it applies to, its policy (editable: allow / ask / deny), where it came from and when it
was last used — with Add…, Edit… (:mod:`.rule_editor`) and Revoke. Changes apply at once (and are saved in the
store at once); they are not part of the dialog's Save."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.tools.permissions import POLICIES, Rule, RuleBook
from desktop_agent.core.tools.rule_keys import tool_label
from desktop_agent.ui.i18n import translate, translate_text
from desktop_agent.ui.settings.common import hint_label, on_delete_key
from desktop_agent.ui.settings.rule_editor import KnownTool, RuleEditor

SOURCES = {"user": QT_TRANSLATE_NOOP("RulesBox", "you"),
           "flag": QT_TRANSLATE_NOOP("RulesBox", "--allow-tool (this run)"),
           "default": QT_TRANSLATE_NOOP("RulesBox", "default")}
#: a rule's policy as the list says it (the setting's value is the key)
POLICY_NAMES = {"allow": QT_TRANSLATE_NOOP("RulesBox", "allow"), "ask": QT_TRANSLATE_NOOP("RulesBox", "ask"),
                "deny": QT_TRANSLATE_NOOP("RulesBox", "deny")}


def when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else translate("RulesBox", "never")


class _Relay(QObject):
    """Brings the rule book's change notices (any thread) to the GUI thread."""

    changed = Signal()


class _CompactTable(QTableWidget):
    """A table that asks for little height (the Settings dialog's minimum size counts it); it grows into the
    page's free space."""

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), self.minimumHeight())


class RulesBox(QWidget):
    """The rules of ``rules`` in a table, with a policy box per row and Revoke."""

    COLS = (QT_TRANSLATE_NOOP("RulesBox", "Tool"), QT_TRANSLATE_NOOP("RulesBox", "Applies to"),
            QT_TRANSLATE_NOOP("RulesBox", "Policy"), QT_TRANSLATE_NOOP("RulesBox", "Source"),
            QT_TRANSLATE_NOOP("RulesBox", "Last used"))

    def __init__(self, rules: RuleBook, parent: QWidget | None = None,
                 tools: Callable[[], list[KnownTool]] | None = None) -> None:
        super().__init__(parent)
        self.rules = rules
        self._tools = tools or (lambda: [])
        self._rows: list[Rule] = []
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.toggle.setAutoRaise(True)
        self.toggle.setStyleSheet("font-weight: 600;")
        self.toggle.setAccessibleName(translate("RulesBox", "Show the permission rules"))
        self.hint = hint_label(translate("RulesBox", "made by Always allow on an approval card or added here; "
                                               "changes apply at once"))
        head = QHBoxLayout()
        head.addWidget(self.toggle)
        head.addWidget(self.hint, 1)
        lay.addLayout(head)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        self.table = _CompactTable(0, len(self.COLS))
        self.table.setAccessibleName(translate("RulesBox", "Permission rules"))
        self.table.setHorizontalHeaderLabels([translate("RulesBox", c) for c in self.COLS])
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setMinimumHeight(84)
        header = self.table.horizontalHeader()
        for col in range(len(self.COLS)):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.empty = QLabel(translate("RulesBox", "No rules yet."))
        self.empty.setAccessibleName(translate("RulesBox", "No permission rules"))
        self.revoke_button = QPushButton(translate("RulesBox", "Re&voke"))
        self.revoke_button.setAccessibleName(translate("RulesBox", "Revoke the selected rule"))
        self.revoke_button.setAutoDefault(False)
        self.add_button = QPushButton(translate("RulesBox", "&Add…"))
        self.add_button.setAccessibleName(translate("RulesBox", "Add a permission rule"))
        self.edit_button = QPushButton(translate("RulesBox", "&Edit…"))
        self.edit_button.setAccessibleName(translate("RulesBox", "Edit the selected rule"))
        side = QVBoxLayout()
        for button in (self.add_button, self.edit_button):
            button.setAutoDefault(False)
            side.addWidget(button)
        side.addWidget(self.revoke_button)
        side.addWidget(self.empty)
        side.addStretch(1)
        row = QHBoxLayout()
        row.addWidget(self.table, 1)
        row.addLayout(side)
        body.addLayout(row)
        lay.addWidget(self.body, 1)
        self.body.setVisible(False)  # folded: the Tools page stays short; the toggle shows how many rules
        self.toggle.toggled.connect(self.set_expanded)
        self.revoke_button.clicked.connect(self.revoke_selected)
        self.add_button.clicked.connect(lambda: self.add_rule())
        self.edit_button.clicked.connect(lambda: self.edit_selected())
        self.table.doubleClicked.connect(lambda _index: self.edit_selected())
        self.table.itemSelectionChanged.connect(self._update_buttons)
        on_delete_key(self.table, self.revoke_selected)
        self._relay = _Relay(self)
        self._relay.changed.connect(self.refresh, Qt.ConnectionType.QueuedConnection)
        relay, book = self._relay, rules

        def notify() -> None:
            relay.changed.emit()

        rules.subscribe(notify)
        self.destroyed.connect(lambda *_: book.unsubscribe(notify))
        self.refresh()

    def refresh(self) -> None:
        """Show the rules as they are now (keeps the selected rule selected)."""
        selected = self.selected_rule()
        self._rows = self.rules.rules()
        self.table.setRowCount(len(self._rows))
        for i, rule in enumerate(self._rows):
            name = tool_label(rule.tool)
            self.table.setItem(i, 0, QTableWidgetItem(name))
            self.table.setItem(i, 1, QTableWidgetItem(translate_text(rule.scope.label(name))))
            box = QComboBox()
            for policy in POLICIES:
                box.addItem(translate("RulesBox", POLICY_NAMES.get(policy, policy)), policy)
            box.setCurrentIndex(max(0, box.findData(rule.policy)))
            box.setAccessibleName(translate("RulesBox", "Policy of the rule for {tool}").format(tool=name))
            box.currentIndexChanged.connect(
                lambda i, rid=rule.id, b=box: self.set_policy(rid, str(b.itemData(i))))
            self.table.setCellWidget(i, 2, box)
            policy_name = translate("RulesBox", POLICY_NAMES.get(rule.policy, rule.policy))
            self.table.setItem(i, 2, QTableWidgetItem(policy_name))
            self.table.setItem(i, 3, QTableWidgetItem(translate("RulesBox", SOURCES.get(rule.source, rule.source))))
            self.table.setItem(i, 4, QTableWidgetItem(when(rule.last_used_at)))
            if selected is not None and rule.id == selected.id:
                self.table.selectRow(i)
        self.empty.setVisible(not self._rows)
        self.toggle.setText(translate("RulesBox", "Permission rules ({n_rows})").format(n_rows=len(self._rows)))
        self._update_buttons()

    def set_expanded(self, on: bool) -> None:
        """Show (or fold) the rules list."""
        if self.toggle.isChecked() != on:
            self.toggle.setChecked(on)
            return
        self.body.setVisible(on)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if on else Qt.ArrowType.RightArrow)

    def selected_rule(self) -> Rule | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self._rows):
            return None
        return self._rows[rows[0].row()]

    def set_policy(self, rule_id: int, policy: str) -> None:
        rule = self.rules.get(rule_id)
        if rule is not None and rule.policy != policy:
            self.rules.set_policy(rule_id, policy)

    def editor(self, rule: Rule | None = None) -> RuleEditor:
        """The rule editor for ``rule`` (None: a new rule), not shown yet."""
        return RuleEditor(self._tools(), rule, self)

    def add_rule(self, editor: RuleEditor | None = None) -> None:
        """Ask for a new rule (``editor``: one already filled in and accepted, tests) and add it."""
        dialog = editor or self.editor()
        if editor is None and not dialog.exec():
            return
        key, scope, policy = dialog.result_rule()
        self.rules.add(key, scope, policy, source="user")
        self.refresh()

    def edit_selected(self, editor: RuleEditor | None = None) -> None:
        """Edit the selected rule (``editor``: one already filled in and accepted, tests)."""
        rule = self.selected_rule()
        if rule is None:
            return
        dialog = editor or self.editor(rule)
        if editor is None and not dialog.exec():
            return
        key, scope, policy = dialog.result_rule()
        if (key, scope) != (rule.tool, rule.scope):
            self.rules.remove(rule.id)
        new = self.rules.add(key, scope, policy, source="user")
        self.refresh()
        row = next((i for i, r in enumerate(self._rows) if r.id == new.id), None)
        if row is not None:
            self.table.selectRow(row)

    def revoke_selected(self) -> None:
        rule = self.selected_rule()
        if rule is not None:
            self.rules.remove(rule.id)
            self.refresh()

    def _update_buttons(self) -> None:
        self.revoke_button.setEnabled(self.selected_rule() is not None)
        self.edit_button.setEnabled(self.selected_rule() is not None)
