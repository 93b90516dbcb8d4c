""":class:`ToolList`: every installed tool with its on/off switch, source, what it does and its parameters
(expand a row), and a Reload tools button that loads the tool files again without a restart."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.settings import Settings
from desktop_agent.ui.i18n import source_name, translate
from desktop_agent.ui.settings.common import note_label, show
from desktop_agent.ui.tasks import Task, TaskRunner

if TYPE_CHECKING:
    from desktop_agent.core.assembly import Assembly
    from desktop_agent.core.tools.definition import Tool

log = logging.getLogger(__name__)

NAME_COL, SOURCE_COL, KIND_COL, DESCRIPTION_COL = range(4)


def _kind(tool: Tool) -> str:
    if getattr(tool, "destructive", False):
        return translate("ToolList", "changes things")
    if getattr(tool, "read_only", False):
        return translate("ToolList", "read-only")
    return ""


def _first_line(text: str) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0] if lines else ""


class ToolList(QWidget):
    """The tools the assembly loads for ``settings()`` (listed on ``tasks``, off the GUI thread).

    Unticking a tool leaves it out of what the model is offered (``tools.disabled``: :meth:`disabled`);
    ``changed`` is emitted on each switch. Reload tools loads every tool file again
    (:meth:`~desktop_agent.core.assembly.Assembly.reload_tools`): the window's next turn uses what it found,
    and the files that failed are named under the list (their tracebacks are in the log).
    """

    changed = Signal()
    #: the tools were listed (names), after the first listing and after each reload
    listed = Signal(list)

    def __init__(self, assembly: Assembly | None, tasks: TaskRunner | None, settings: Callable[[], Settings],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._assembly = assembly
        self._tasks = tasks
        self.tools: list[Tool] = []
        self._settings = settings
        #: tools left out: the names ticked off here plus those saved that are not installed now
        self._disabled: list[str] = []
        self._filling = False

        self.tree = QTreeWidget()
        self.tree.setAccessibleName(translate("ToolList", "Installed tools"))
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels([translate("ToolList", "Tool"), translate("ToolList", "Source"), translate(
                "ToolList", "Kind"), translate("ToolList", "Description")])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setMinimumHeight(180)
        header = self.tree.header()
        header.setStretchLastSection(True)
        for col in (NAME_COL, SOURCE_COL, KIND_COL):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.summary = QLabel()
        self.summary.setAccessibleName(translate("ToolList", "Tools summary"))
        self.reload_button = QPushButton(translate("ToolList", "Re&load tools"))
        self.reload_button.setAccessibleName(translate("ToolList", "Reload the tools from their files"))
        self.reload_button.setToolTip(translate("ToolList",
                "Load the tool files again, without restarting: new and changed files count "
                                      "from the next message on"))
        self.reload_button.setAutoDefault(False)
        self.status = note_label(translate("ToolList", "Tools status"))
        bottom = QHBoxLayout()
        bottom.setContentsMargins(0, 0, 0, 0)
        bottom.addWidget(self.summary, 1)
        bottom.addWidget(self.reload_button)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        outer.addWidget(self.tree, 1)
        outer.addLayout(bottom)
        outer.addWidget(self.status)

        self.tree.itemChanged.connect(self._item_changed)
        self.reload_button.clicked.connect(self.reload)
        self.reload_button.setEnabled(assembly is not None and tasks is not None)

    # ---- values ------------------------------------------------------------------------------------

    def set_disabled(self, names: list[str]) -> None:
        self._disabled = list(dict.fromkeys(names))
        self._apply_checks()

    def disabled(self) -> list[str]:
        """The tools not offered to the model, in a stable order (saved ones first)."""
        return list(self._disabled)

    def _items(self) -> list[QTreeWidgetItem]:
        tree = self.tree
        return [it for i in range(tree.topLevelItemCount()) if (it := tree.topLevelItem(i)) is not None]

    def names(self) -> list[str]:
        return [it.text(NAME_COL) for it in self._items()]

    def item(self, name: str) -> QTreeWidgetItem | None:
        return next((it for it in self._items() if it.text(NAME_COL) == name), None)

    def set_enabled_tool(self, name: str, on: bool) -> None:
        """Tick (``on``) or untick the switch of tool ``name``."""
        it = self.item(name)
        if it is not None:
            it.setCheckState(NAME_COL, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    # ---- listing and reloading ---------------------------------------------------------------------

    def refresh(self) -> None:
        """List the tools (loading them the first time) in the background."""
        if self._assembly is None or self._tasks is None:
            return
        assembly, settings = self._assembly, self._settings()
        show(self.status, None)
        self.summary.setText(translate("ToolList", "Listing the tools…"))
        self._tasks.run(lambda _task: (assembly.available_tools(settings), []), self._listed, key="settings-tools")

    def reload(self) -> None:
        """Load every tool file again (no restart); the list shows the result and the problems found."""
        if self._assembly is None or self._tasks is None:
            return
        assembly, settings = self._assembly, self._settings()
        self.reload_button.setEnabled(False)
        self.summary.setText(translate("ToolList", "Reloading the tools…"))

        def work(_task: Task) -> tuple[list[Tool], list[str]]:
            return assembly.reload_tools(settings)

        self._tasks.run(work, lambda result, error: self._listed(result, error, reloaded=True), key="settings-tools")

    def _listed(self, result: tuple[list[Tool], list[str]] | None, error: BaseException | None,
                reloaded: bool = False) -> None:
        self.reload_button.setEnabled(True)
        if error is not None or result is None:
            log.warning("could not list the tools", exc_info=error)
            self.summary.setText("")
            show(self.status, translate("ToolList", "The tools could not be listed: {error}").format(error=error),
                    "err")
            return
        tools, problems = result
        self._fill(tools)
        n = len(tools)
        count = translate("ToolList", "%n tool", None, n) if n == 1 else translate("ToolList", "%n tools", None, n)
        self.summary.setText(translate("ToolList", "{count} reloaded.").format(
                count=count) if reloaded else translate("ToolList", "{count}.").format(count=count))
        if problems:
            shown = "\n".join(f"• {p}" for p in problems)
            show(self.status, translate("ToolList",
                    "Some tool files could not be loaded (the details are in the log); the other tools work:\n{shown}"
                    ).format(shown=shown), "warn")
        else:
            show(self.status, None)
        self.listed.emit([t.name for t in tools])

    def _fill(self, tools: list[Tool]) -> None:
        self.tools = list(tools)  # what the permission rules' editor offers
        expanded = {it.text(NAME_COL) for it in self._items() if it.isExpanded()}
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._filling = True
        try:
            self.tree.clear()
            for t in tools:
                it = QTreeWidgetItem([t.name, source_name(str(t.source or "")), _kind(t),
                                                  _first_line(t.description)])
                it.setFlags(it.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                it.setToolTip(DESCRIPTION_COL, t.description or t.name)
                it.setData(NAME_COL, Qt.ItemDataRole.AccessibleTextRole, translate("ToolList",
                        "{name}, from {source}").format(
                    name=t.name, source=source_name(str(t.source or ""))))
                if not _kind(t):  # a blank cell shows nothing; a screen reader says why
                    it.setData(KIND_COL, Qt.ItemDataRole.AccessibleTextRole, self.tr("kind not declared"))
                description = QTreeWidgetItem([t.description or translate("ToolList", "(no description)")])
                description.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                schema = QTreeWidgetItem([json.dumps(t.parameters, indent=2, ensure_ascii=False)])
                schema.setFont(0, mono)
                schema.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                it.addChildren([description, schema])
                self.tree.addTopLevelItem(it)
                description.setFirstColumnSpanned(True)
                schema.setFirstColumnSpanned(True)
                it.setExpanded(t.name in expanded)
        finally:
            self._filling = False
        self._apply_checks()

    def _apply_checks(self) -> None:
        self._filling = True
        try:
            for it in self._items():
                off = it.text(NAME_COL) in self._disabled
                it.setCheckState(NAME_COL, Qt.CheckState.Unchecked if off else Qt.CheckState.Checked)
        finally:
            self._filling = False

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        if self._filling or column != NAME_COL or item.parent() is not None:
            return
        name = item.text(NAME_COL)
        on = item.checkState(NAME_COL) == Qt.CheckState.Checked
        if on:
            self._disabled = [n for n in self._disabled if n != name]
        elif name not in self._disabled:
            self._disabled.append(name)
        self.changed.emit()

