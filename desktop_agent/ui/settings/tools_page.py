"""The Settings dialog's Tools page: whether the model may use tools, how long a tool may run, how much of its
output is sent to the model, the folders file and command tools may use, extra tool folders, where the user
tools folder is (with a button that opens it in the file manager), every installed tool with its switch
(:mod:`.tool_list`, with Reload tools), and what was learned about each server and model, with Forget
(:mod:`.learned_box`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core import paths
from desktop_agent.core.settings import Settings
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import (
    SettingsPage,
    form_row,
    hint_label,
    note_label,
    parse_seconds,
    show,
)
from desktop_agent.ui.settings.folder_list import FolderList
from desktop_agent.ui.settings.learned_box import LearnedBox
from desktop_agent.ui.settings.tool_list import ToolList

if TYPE_CHECKING:
    from desktop_agent.core.assembly import Assembly
    from desktop_agent.ui.tasks import TaskRunner

#: the page's sections (``ToolsPage.sections``)
OPTIONS_SECTION, INSTALLED_SECTION, LEARNED_SECTION = 0, 1, 2
#: the largest output cap the field takes (characters); the settings accept any number from 256 up
MAX_OUTPUT_CAP = 100_000_000


class ToolsPage(SettingsPage):
    """``tools.enabled``, ``tools.timeout_s``, ``tools.isolated``, ``tools.output_cap``, ``tools.max_offered``,
    ``tools.allowed_folders``, ``tools.dirs`` and ``tools.disabled``; the user tools folder is shown, not edited (it
    is where the app's data lives). ``assembly`` and ``tasks`` list and reload the tools (without them the list
    stays empty). ``learned_changed``: what was learned was forgotten (at once, not on Save)."""

    learned_changed = Signal()

    def __init__(self, assembly: Assembly | None = None, tasks: TaskRunner | None = None) -> None:
        super().__init__()
        self._tools_folder: Path | None = None
        self._settings = Settings()
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        #: the page's two parts: options (limits, the folders tools may use), and the installed tools with the
        #: folders they come from
        self.sections = QTabWidget()
        self.sections.setAccessibleName(translate("ToolsPage", "Tools sections"))
        outer.addWidget(self.sections)
        options = QWidget()
        options_layout = QVBoxLayout(options)
        form = QFormLayout()
        options_layout.addLayout(form)

        self.enabled = QCheckBox(translate("ToolsPage", "&Use tools"))
        self.enabled.setAccessibleName(translate("ToolsPage", "Use tools"))
        form_row(form, "", self.enabled,
                 hint_label(translate("ToolsPage",
                         "The model may call the shipped tools, those in your tools folder and those in the "
                            "extra folders. Off: the model gets no tools.")), left=True)

        self.timeout = QLineEdit()
        self.timeout.setAccessibleName(translate("ToolsPage", "Tool timeout in seconds"))
        self.timeout.setFixedWidth(110)
        self.timeout_error = note_label(translate("ToolsPage", "Tool timeout error"))
        form_row(form, translate("ToolsPage", "Tool &timeout (s):"), self.timeout, self.timeout_error,
                 hint_label(translate("ToolsPage",
                         "Seconds a tool may run before it is stopped, e.g. 30 (a tool can set its own "
                            "with `@tool(timeout_s=...)`).")), left=True)

        self.isolated = QCheckBox(translate("ToolsPage", "&Isolate tools in their own process"))
        self.isolated.setAccessibleName(translate("ToolsPage", "Run tools in a separate process"))
        form_row(form, "", self.isolated,
                 hint_label(translate("ToolsPage",
                         "A tool that crashes, hangs or prints cannot take the app down: timeout and cancel "
                            "stop it for real, and what it prints is shown with its result. Off: tools run "
                            "inside the app (a little faster to start).")), left=True)

        self.output_cap = QSpinBox()
        self.output_cap.setRange(0, MAX_OUTPUT_CAP)
        self.output_cap.setSingleStep(1000)
        self.output_cap.setGroupSeparatorShown(True)
        self.output_cap.setAccessibleName(translate("ToolsPage", "Tool output cap in characters"))
        self.output_cap.setFixedWidth(110)
        self.output_cap_error = note_label(translate("ToolsPage", "Tool output cap error"))
        form_row(form, translate("ToolsPage", "Output &cap (characters):"), self.output_cap, self.output_cap_error,
                 hint_label(translate("ToolsPage",
                         "Characters of a tool's output sent to the model, at least 256; longer output is "
                            "cut (Tool activity shows all of it).")), left=True)

        self.only_relevant = QCheckBox(translate("ToolsPage", "Offer only the tools that &fit the message"))
        self.only_relevant.setAccessibleName(translate("ToolsPage", "Offer only the tools that fit the message"))
        form_row(form, "", self.only_relevant,
                 hint_label(translate("ToolsPage",
                         "A message no tool fits (\u201cWhat is the capital of France?\u201d) is answered without "
                            "tools; one that fits gets only the best few. Small models take every tool offered "
                            "as an order. Off: every tool on every message.")), left=True)

        self.max_offered = QSpinBox()
        self.max_offered.setRange(0, 1000)
        self.max_offered.setSpecialValueText("all")
        self.max_offered.setAccessibleName(translate("ToolsPage", "Most tools offered at once"))
        self.max_offered.setFixedWidth(110)
        form_row(form, translate("ToolsPage", "Offer at &most (tools):"), self.max_offered,
                 hint_label(translate("ToolsPage",
                         "With more tools than this, each message offers the model the most relevant ones and a "
                            "find_tools tool for the rest (small models stop calling tools when offered dozens). "
                            "0 = all.")), left=True)

        self.allowed = FolderList(translate("ToolsPage", "Folders tools may use"), add_text=translate("ToolsPage",
                "&Add folder…"),
                                  dialog_title=translate("ToolsPage", "Allow tools to use a folder"),
                                  missing_text=translate("ToolsPage", "Not found, file tools cannot use:"))
        self.allowed.list.setMaximumHeight(72)  # two or three folders in view; it scrolls beyond them
        form_row(form, translate("ToolsPage", "Folders tools may u&se:"), self.allowed,
                 hint_label(translate("ToolsPage",
                         "The file tools (list, read, search, write) and shell commands work only inside these "
                            "folders and their sub-folders; none by default. Writes and commands ask first.")),
                 buddy=self.allowed.list)

        options_layout.addStretch(1)
        self.sections.addTab(options, translate("ToolsPage", "&Options"))

        # where tools come from, beside the tools they gave
        sources = QFormLayout()
        self.tools_folder = QLineEdit()
        self.tools_folder.setReadOnly(True)
        self.tools_folder.setAccessibleName(translate("ToolsPage", "Your tools folder"))
        self.open_button = QPushButton(translate("ToolsPage", "O&pen tools folder"))
        self.open_button.setAccessibleName(translate("ToolsPage", "Open the tools folder in the file manager"))
        self.open_button.setAutoDefault(False)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.tools_folder, 1)
        folder_row.addWidget(self.open_button)
        self.tools_folder_status = note_label(translate("ToolsPage", "Tools folder status"))
        form_row(sources, translate("ToolsPage", "Your tools folder:"), folder_row,
                 hint_label(translate("ToolsPage",
                         "Python files with `@tool` functions put here are loaded with the shipped tools.")),
                 self.tools_folder_status, buddy=self.tools_folder)

        self.extra_dirs = FolderList(translate("ToolsPage", "Extra tool folders"), add_text=translate("ToolsPage",
                "A&dd folder…"), remove_text=translate("ToolsPage", "&Remove"),
                                     add_name=translate("ToolsPage", "Add a tool folder"), remove_name=translate(
                                             "ToolsPage", "Remove the selected tool folder"),
                                     dialog_title=translate("ToolsPage", "Add a tool folder"),
                                     missing_text=translate("ToolsPage", "Not found, skipped when tools load:"))
        self.dirs = self.extra_dirs.list
        self.add_button, self.remove_button = self.extra_dirs.add_button, self.extra_dirs.remove_button
        self.dirs_note = self.extra_dirs.note
        self.dirs_note.setAccessibleName(translate("ToolsPage", "Extra tool folders note"))
        form_row(sources, translate("ToolsPage", "Extra tool &folders:"), self.extra_dirs, buddy=self.dirs)

        self.tool_list = ToolList(assembly, tasks, self._listing_settings)
        installed = QWidget()
        installed_layout = QVBoxLayout(installed)
        installed_layout.addWidget(hint_label(translate("ToolsPage",
                "Untick a tool to keep it from the model (a chat can also choose its "
                                              "own, in the Tools menu above the message box); expand a row for "
                                              "its description and parameters.")))
        installed_layout.addWidget(self.tool_list, 1)
        installed_layout.addLayout(sources)
        self.sections.addTab(installed, translate("ToolsPage", "I&nstalled tools"))

        self.learned = LearnedBox()
        self.learned.changed.connect(self.learned_changed)
        self.sections.addTab(self.learned, translate("ToolsPage", "&Learned"))

        self.fields = [
            (("tools.timeout_s",), self.timeout_error, translate("ToolsPage", "Tool timeout (Tools tab)")),
            (("tools.output_cap",), self.output_cap_error, translate("ToolsPage", "Output cap (Tools tab)")),
        ]
        self.enabled.toggled.connect(self._enabled_toggled)
        self.timeout.textChanged.connect(self.changed)
        self.output_cap.valueChanged.connect(self.changed)
        self.isolated.toggled.connect(self.changed)
        self.max_offered.valueChanged.connect(self.changed)
        self.only_relevant.toggled.connect(self.changed)
        self.open_button.clicked.connect(self.open_tools_folder)
        self.extra_dirs.changed.connect(self.changed)
        self.allowed.changed.connect(self.changed)
        self.tool_list.changed.connect(self.changed)

    # ---- values in and out -----------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        tools = settings.tools
        self._settings = settings
        self.enabled.setChecked(tools.enabled)
        self.allowed.set_folders(list(tools.allowed_folders))
        self.tool_list.set_disabled(list(tools.disabled))
        self.timeout.setText(f"{tools.timeout_s:g}")
        self.isolated.setChecked(tools.isolated)
        self.output_cap.setValue(min(tools.output_cap, MAX_OUTPUT_CAP))
        self.max_offered.setValue(tools.max_offered)
        self.only_relevant.setChecked(tools.only_relevant)
        self.extra_dirs.set_folders(list(tools.dirs))
        self._show_tools_folder()
        self._enabled_toggled(tools.enabled)
        self.tool_list.refresh()

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "tools.enabled": self.enabled.isChecked(),
            "tools.output_cap": self.output_cap.value(),
            "tools.isolated": self.isolated.isChecked(),
            "tools.max_offered": self.max_offered.value(),
            "tools.only_relevant": self.only_relevant.isChecked(),
            "tools.dirs": self.folders(),
            "tools.allowed_folders": self.allowed.folders(),
            "tools.disabled": self.tool_list.disabled(),
        }
        timeout, _problem = parse_seconds(self.timeout, "30")
        if timeout is not None:
            out["tools.timeout_s"] = timeout
        return out

    def input_errors(self) -> dict[str, str]:
        _timeout, problem = parse_seconds(self.timeout, "30")
        return {"tools.timeout_s": problem} if problem else {}

    def _listing_settings(self) -> Settings:
        """The settings the tool list loads with: the saved ones with the tool folders as edited here."""
        return self._settings.updated({"tools.dirs": self.folders()})

    # ---- extra tool folders (a FolderList) -----------------------------------------------------------

    def folders(self) -> list[str]:
        """The extra tool folders, in the list's order."""
        return self.extra_dirs.folders()

    def add_folder(self, folder: str | None = None) -> None:
        """Add ``folder`` (default: ask for one) to the extra tool folders; a folder already listed is
        selected instead."""
        self.extra_dirs.add_folder(folder)

    def remove_folder(self) -> None:
        """Remove the selected folder from the list (the folder itself is left alone)."""
        self.extra_dirs.remove_selected()

    def _enabled_toggled(self, on: bool) -> None:
        for widget in (self.timeout, self.isolated, self.output_cap, self.max_offered, self.only_relevant,
                       self.extra_dirs, self.allowed):
            widget.setEnabled(on)
        self.changed.emit()

    def show_rules(self, rules: Any) -> None:
        """Add the permission rules list (:mod:`.rules_box`) for ``rules`` (a RuleBook) as the page's last section."""
        from desktop_agent.core.tools.rule_keys import rule_key
        from desktop_agent.ui.settings.rule_editor import KnownTool
        from desktop_agent.ui.settings.rules_box import RulesBox

        self.rules_box = RulesBox(rules, tools=lambda: [KnownTool(t.name, rule_key(t), bool(t.destructive))
                                                        for t in self.tool_list.tools])
        self.rules_box.set_expanded(True)
        self.sections.addTab(self.rules_box, translate("ToolsPage", "Permissions"))

    # ---- the user tools folder -------------------------------------------------------------------

    def _show_tools_folder(self) -> None:
        try:
            self._tools_folder = paths.user_tools_dir()
        except OSError as exc:  # an unwritable data folder
            self._tools_folder = None
            self.tools_folder.clear()
            show(self.tools_folder_status, translate("ToolsPage", "The tools folder cannot be created: {exc}").format(
                    exc=exc), "warn")
        else:
            self.tools_folder.setText(str(self._tools_folder))
            show(self.tools_folder_status, None)
        self.open_button.setEnabled(self._tools_folder is not None)

    def open_tools_folder(self) -> None:
        """Open the user tools folder in the desktop's file manager."""
        if self._tools_folder is None:
            return
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(str(self._tools_folder))):
            show(self.tools_folder_status, translate("ToolsPage", "No file manager could open {tools_folder}.").format(
                    tools_folder=self._tools_folder), "warn")
