"""The Settings dialog's Tools page: whether the model may use tools, how long a tool may run, how much of its
output is sent to the model, extra tool folders, and where the user tools folder is (with a button that opens
it in the file manager)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from desktop_agent.core import paths
from desktop_agent.core.settings import Settings
from desktop_agent.ui.settings.common import (
    SettingsPage,
    form_row,
    hint_label,
    note_label,
    on_delete_key,
    parse_seconds,
    show,
)

#: the largest output cap the field takes (characters); the settings accept any number from 256 up
MAX_OUTPUT_CAP = 100_000_000


class ToolsPage(SettingsPage):
    """``tools.enabled``, ``tools.timeout_s``, ``tools.isolated``, ``tools.output_cap``, ``tools.max_offered`` and
    ``tools.dirs``; the user tools folder is shown, not edited (it is where the app's data lives)."""

    def __init__(self) -> None:
        super().__init__()
        self._tools_folder: Path | None = None
        outer = QVBoxLayout(self)
        form = QFormLayout()
        outer.addLayout(form)

        self.enabled = QCheckBox("&Use tools")
        self.enabled.setAccessibleName("Use tools")
        form_row(form, "", self.enabled,
                 hint_label("The model may call the shipped tools, those in your tools folder and those in the "
                            "extra folders. Off: the model gets no tools."), left=True)

        self.timeout = QLineEdit()
        self.timeout.setAccessibleName("Tool timeout in seconds")
        self.timeout.setFixedWidth(110)
        self.timeout_error = note_label("Tool timeout error")
        form_row(form, "Tool &timeout (s):", self.timeout, self.timeout_error,
                 hint_label("Seconds a tool may run before it is stopped, e.g. 30 (a tool can set its own "
                            "with `@tool(timeout_s=...)`)."), left=True)

        self.isolated = QCheckBox("&Isolate tools in their own process")
        self.isolated.setAccessibleName("Run tools in a separate process")
        form_row(form, "", self.isolated,
                 hint_label("A tool that crashes, hangs or prints cannot take the app down: timeout and cancel "
                            "stop it for real, and what it prints is shown with its result. Off: tools run "
                            "inside the app (a little faster to start)."), left=True)

        self.output_cap = QSpinBox()
        self.output_cap.setRange(0, MAX_OUTPUT_CAP)
        self.output_cap.setSingleStep(1000)
        self.output_cap.setGroupSeparatorShown(True)
        self.output_cap.setAccessibleName("Tool output cap in characters")
        self.output_cap.setFixedWidth(110)
        self.output_cap_error = note_label("Tool output cap error")
        form_row(form, "Output &cap (characters):", self.output_cap, self.output_cap_error,
                 hint_label("Characters of a tool's output sent to the model, at least 256; longer output is "
                            "cut (Tool activity shows all of it)."), left=True)

        self.max_offered = QSpinBox()
        self.max_offered.setRange(0, 1000)
        self.max_offered.setSpecialValueText("all")
        self.max_offered.setAccessibleName("Most tools offered at once")
        self.max_offered.setFixedWidth(110)
        form_row(form, "Offer at &most (tools):", self.max_offered,
                 hint_label("With more tools than this, each message offers the model the most relevant ones and a "
                            "find_tools tool for the rest (small models stop calling tools when offered dozens). "
                            "0 = all."), left=True)

        self.tools_folder = QLineEdit()
        self.tools_folder.setReadOnly(True)
        self.tools_folder.setAccessibleName("Your tools folder")
        self.open_button = QPushButton("O&pen tools folder")
        self.open_button.setAccessibleName("Open the tools folder in the file manager")
        self.open_button.setAutoDefault(False)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.tools_folder, 1)
        folder_row.addWidget(self.open_button)
        self.tools_folder_status = note_label("Tools folder status")
        form_row(form, "Your tools folder:", folder_row,
                 hint_label("Python files with `@tool` functions put here are loaded with the shipped tools."),
                 self.tools_folder_status, buddy=self.tools_folder)

        self.dirs = QListWidget()
        self.dirs.setAccessibleName("Extra tool folders")
        self.dirs.setMinimumHeight(60)
        self.dirs.setMaximumHeight(96)  # a few folders; the list scrolls beyond them
        self.add_button = QPushButton("A&dd folder…")
        self.add_button.setAccessibleName("Add a tool folder")
        self.add_button.setAutoDefault(False)
        self.remove_button = QPushButton("&Remove")
        self.remove_button.setAccessibleName("Remove the selected tool folder")
        self.remove_button.setAutoDefault(False)
        buttons = QVBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        dirs_row = QHBoxLayout()
        dirs_row.addWidget(self.dirs, 1)
        dirs_row.addLayout(buttons)
        self.dirs_note = note_label("Extra tool folders note")
        form_row(form, "Extra tool &folders:", dirs_row, self.dirs_note, buddy=self.dirs)
        outer.addStretch(1)
        self._outer = outer

        self.fields = [
            (("tools.timeout_s",), self.timeout_error, "Tool timeout (Tools tab)"),
            (("tools.output_cap",), self.output_cap_error, "Output cap (Tools tab)"),
        ]
        self.enabled.toggled.connect(self._enabled_toggled)
        self.timeout.textChanged.connect(self.changed)
        self.output_cap.valueChanged.connect(self.changed)
        self.isolated.toggled.connect(self.changed)
        self.max_offered.valueChanged.connect(self.changed)
        self.add_button.clicked.connect(lambda: self.add_folder())
        self.remove_button.clicked.connect(self.remove_folder)
        self.open_button.clicked.connect(self.open_tools_folder)
        self.dirs.itemSelectionChanged.connect(self._update_buttons)
        on_delete_key(self.dirs, self.remove_folder)

    # ---- values in and out -----------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        tools = settings.tools
        self.enabled.setChecked(tools.enabled)
        self.timeout.setText(f"{tools.timeout_s:g}")
        self.isolated.setChecked(tools.isolated)
        self.output_cap.setValue(min(tools.output_cap, MAX_OUTPUT_CAP))
        self.max_offered.setValue(tools.max_offered)
        self.dirs.clear()
        self.dirs.addItems(tools.dirs)
        self._show_tools_folder()
        self._enabled_toggled(tools.enabled)
        self._check_folders()

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tools.enabled": self.enabled.isChecked(),
            "tools.output_cap": self.output_cap.value(),
            "tools.isolated": self.isolated.isChecked(),
            "tools.max_offered": self.max_offered.value(),
            "tools.dirs": self.folders(),
        }
        timeout, _problem = parse_seconds(self.timeout, "30")
        if timeout is not None:
            out["tools.timeout_s"] = timeout
        return out

    def input_errors(self) -> dict[str, str]:
        _timeout, problem = parse_seconds(self.timeout, "30")
        return {"tools.timeout_s": problem} if problem else {}

    # ---- extra tool folders ----------------------------------------------------------------------

    def folders(self) -> list[str]:
        """The extra tool folders, in the list's order."""
        return [self.dirs.item(i).text() for i in range(self.dirs.count())]

    def add_folder(self, folder: str | None = None) -> None:
        """Add ``folder`` (default: ask for one) to the extra tool folders; a folder already listed is
        selected instead."""
        if folder is None:
            folder = self._ask_folder()
        if not folder:
            return
        known = self.folders()
        if folder not in known:
            self.dirs.addItem(folder)
            known.append(folder)
        self.dirs.setCurrentRow(known.index(folder))
        self._check_folders()
        self.changed.emit()

    def _ask_folder(self) -> str:
        start = self.folders()[-1] if self.dirs.count() else str(Path.home())
        return QFileDialog.getExistingDirectory(self, "Add a tool folder", start)

    def remove_folder(self) -> None:
        """Remove the selected folder from the list (the folder itself is left alone)."""
        row = self.dirs.currentRow()
        item = self.dirs.currentItem()
        if item is None or not item.isSelected():
            return
        self.dirs.takeItem(row)
        self._check_folders()
        self.changed.emit()

    def _check_folders(self) -> None:
        missing = [f for f in self.folders() if not Path(f).expanduser().is_dir()]
        if missing:
            show(self.dirs_note, "Not found, skipped when tools load: " + ", ".join(missing), "warn")
        else:
            show(self.dirs_note, None)

    def _update_buttons(self) -> None:
        item = self.dirs.currentItem()
        self.remove_button.setEnabled(self.enabled.isChecked() and item is not None and item.isSelected())

    def _enabled_toggled(self, on: bool) -> None:
        for widget in (self.timeout, self.isolated, self.output_cap, self.max_offered, self.dirs, self.add_button):
            widget.setEnabled(on)
        self._update_buttons()
        self.changed.emit()

    def show_rules(self, rules: Any) -> None:
        """Add the permission rules list (:mod:`.rules_box`) for ``rules`` (a RuleBook) to the page."""
        from desktop_agent.ui.settings.rules_box import RulesBox

        self.rules_box = RulesBox(rules)
        self._outer.insertWidget(self._outer.count() - 1, self.rules_box, 1)  # it takes the free height
        self._outer.setStretch(self._outer.count() - 1, 0)

    # ---- the user tools folder -------------------------------------------------------------------

    def _show_tools_folder(self) -> None:
        try:
            self._tools_folder = paths.user_tools_dir()
        except OSError as exc:  # an unwritable data folder
            self._tools_folder = None
            self.tools_folder.clear()
            show(self.tools_folder_status, f"The tools folder cannot be created: {exc}", "warn")
        else:
            self.tools_folder.setText(str(self._tools_folder))
            show(self.tools_folder_status, None)
        self.open_button.setEnabled(self._tools_folder is not None)

    def open_tools_folder(self) -> None:
        """Open the user tools folder in the desktop's file manager."""
        if self._tools_folder is None:
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self._tools_folder))):
            show(self.tools_folder_status, f"No file manager could open {self._tools_folder}.", "warn")
