"""Importing chats from a file and exporting every chat, in the window.

:class:`ImportDialog` reads the file in the background (a progress bar; big files take a while), shows what it
holds and what is new — "ChatGPT export: 412 chats, 3,456 messages" — and imports on the user's say-so, again
in the background with a progress bar and Cancel (a cancelled or failed import saves nothing). A malformed file
shows the reason, naming the wrong entry, and imports nothing. Work runs on the app's task runner
(:mod:`desktop_agent.ui.tasks`), never on the GUI thread.

:func:`export_all` writes every chat to one file (JSON: lossless, every branch; Markdown; an HTML page) in the
background.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core import paths
from desktop_agent.core.errors import StoreError
from desktop_agent.core.porting.model import ImportCancelled
from desktop_agent.ui import theme
from desktop_agent.ui.i18n import number, translate
from desktop_agent.ui.tasks import Task, TaskRunner


def _n(n: int, one: str, many: str) -> str:
    return (one if n == 1 else many).format(n=number(n))


class ImportDialog(QDialog):
    """Import the chats of ``path`` into ``store`` (see the module docstring). ``imported(ImportResult)`` once
    something was saved. States, in :attr:`state`: ``reading``, ``preview``, ``nothing`` (all of it is here
    already), ``failed``, ``importing``, ``cancelled``, ``done``."""

    imported = Signal(object)

    def __init__(self, store: Any, path: str | Path, tasks: TaskRunner, parent: QWidget | None = None):
        super().__init__(parent)
        self.store, self.path, self.tasks = store, Path(path), tasks
        self.plan: Any = None
        self.preview: Any = None
        self.result: Any = None
        self.state = "reading"
        self._task: Task | None = None
        self.setObjectName("importDialog")
        self.setWindowTitle(translate("Import", "Import chats"))
        self.setMinimumWidth(460)
        self.heading = QLabel(translate("Import", "Reading {name}…").format(name=self.path.name), self)
        self.heading.setObjectName("importHeading")
        self.heading.setWordWrap(True)
        font = self.heading.font()
        font.setBold(True)
        self.heading.setFont(font)
        self.details = QLabel(self)
        self.details.setObjectName("importDetails")
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.setAccessibleName(translate("Import", "What the file holds"))
        self.progress = QProgressBar(self)
        self.progress.setObjectName("importProgress")
        self.progress.setAccessibleName(translate("Import", "Import progress"))
        self.progress.setRange(0, 0)  # busy until the first count
        self.buttons = QDialogButtonBox(self)
        self.import_button = QPushButton(translate("Import", "&Import"), self)
        self.import_button.setObjectName("importStart")
        self.import_button.setEnabled(False)
        self.cancel_button = QPushButton(translate("Import", "Cancel"), self)
        self.cancel_button.setObjectName("importCancel")
        self.buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.import_button.clicked.connect(self.start_import)
        self.cancel_button.clicked.connect(self.cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.details)
        layout.addWidget(self.progress)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self._read()

    # -- reading, preview ---------------------------------------------------------------------------

    def _read(self) -> None:
        store, path = self.store, self.path

        def work(task: Task) -> tuple[Any, Any]:
            plan = store.read_import_file(path, progress=lambda done, total: task.report((done, total)),
                                          cancel=task.cancel_event)
            return plan, store.preview_import(plan)

        self._task = self.tasks.run(work, self._on_read, self._on_progress)

    def _on_progress(self, value: tuple[int, int]) -> None:
        done, total = value
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)
        if self.state == "importing":
            self.progress.setFormat(translate("Import", "Chat {done} of {total}").format(
                done=number(min(done + 1, total)), total=number(total)))

    def _on_read(self, result: Any, error: BaseException | None) -> None:
        self._task = None
        if isinstance(error, ImportCancelled):
            self.reject()
            return
        if error is not None:
            self._fail(error)
            return
        self.plan, self.preview = result
        p = self.preview
        self.progress.hide()
        self.heading.setText(translate("Import", "{app}: {chats}, {messages}").format(
            app=p.app_name,
            chats=_n(p.chats, translate("Import", "{n} chat"), translate("Import", "{n} chats")),
            messages=_n(p.messages, translate("Import", "{n} message"), translate("Import", "{n} messages"))))
        lines = [translate("Import", "From {path}").format(path=self._short_path())]
        if p.branched_chats:
            lines.append(_n(p.branched_chats, translate("Import", "{n} chat has branches (regenerated or edited "
                                                                  "messages); they are kept."),
                            translate("Import", "{n} chats have branches (regenerated or edited messages); they are "
                                                "kept.")))
        if p.new_messages == 0:
            self.state = "nothing"
            lines.append(translate("Import", "Nothing new: every chat and message in it is already in your "
                                             "history."))
            self.cancel_button.setText(translate("Import", "Close"))
        else:
            self.state = "preview"
            new = [_n(p.new_chats, translate("Import", "{n} new chat"), translate("Import", "{n} new chats"))]
            if p.updated_chats:
                new.append(_n(p.updated_chats, translate("Import", "new messages in {n} chat imported before"),
                              translate("Import", "new messages in {n} chats imported before")))
            lines.append(translate("Import", "Will add: {what} ({messages} in all).").format(
                what=translate("Import", " and ").join(new),
                messages=_n(p.new_messages, translate("Import", "{n} message"), translate("Import", "{n} messages"))))
            self.import_button.setEnabled(True)
            self.import_button.setDefault(True)
            self.import_button.setFocus()
        self.details.setText("\n".join(lines))
        self.details.setToolTip(str(self.path))
        self._fit()

    def _fit(self) -> None:
        """The dialog as tall as what it now says (the progress bar may have gone)."""
        layout = self.layout()
        if layout is not None:
            layout.activate()
        self.resize(self.width(), self.sizeHint().height())

    def _short_path(self) -> str:
        """The file's path, elided in the middle to fit the dialog (the whole path is the tooltip)."""
        width = max(200, self.details.width() if self.details.width() > 100 else self.minimumWidth() - 40)
        return self.details.fontMetrics().elidedText(str(self.path), Qt.TextElideMode.ElideMiddle, width)

    def _fail(self, error: BaseException) -> None:
        self.state = "failed"
        self.progress.hide()
        self.heading.setText(translate("Import", "This file can't be imported"))
        self.details.setText(str(error) if isinstance(error, StoreError) else translate(
            "Import", "Can't import {path}: {reason}. Nothing was imported.").format(path=str(self.path),
                                                                                     reason=str(error)))
        self.details.setStyleSheet(f"color: {theme.current(self.palette()).error_text};")
        self.import_button.setEnabled(False)
        self.cancel_button.setText(translate("Import", "Close"))
        self._fit()

    # -- importing ----------------------------------------------------------------------------------

    def start_import(self) -> None:
        if self.state != "preview" or self.plan is None:
            return

        self.state = "importing"
        plan, store = self.plan, self.store
        self.import_button.setEnabled(False)
        self.heading.setText(translate("Import", "Importing {chats}…").format(
            chats=_n(len(plan.chats), translate("Import", "{n} chat"), translate("Import", "{n} chats"))))
        self.progress.setRange(0, max(1, len(plan.chats)))
        self.progress.setValue(0)
        self.progress.setTextVisible(True)
        self.progress.show()

        def work(task: Task) -> Any:
            return store.import_plan(plan, progress=lambda done, total: task.report((done, total)),
                                            cancel=task.cancel_event)

        self._task = self.tasks.run(work, self._on_imported, self._on_progress)

    def _on_imported(self, result: Any, error: BaseException | None) -> None:
        self._task = None
        if isinstance(error, ImportCancelled):
            self.state = "cancelled"
            self.progress.hide()
            self.heading.setText(translate("Import", "Import stopped"))
            self.details.setText(translate("Import", "Nothing was imported."))
            self.cancel_button.setText(translate("Import", "Close"))
            return
        if error is not None:
            self._fail(error)
            return
        self.state = "done"
        self.result = result
        self.imported.emit(result)
        self.accept()

    def cancel(self) -> None:
        """Cancel: stops reading or importing (nothing is saved), or closes the dialog."""
        if self._task is not None:
            self._task.cancel()
            self.cancel_button.setEnabled(False)
            self.heading.setText(translate("Import", "Stopping…"))
            if self.state == "reading":
                self.reject()
            return
        self.reject()

    def reject(self) -> None:
        if self._task is not None and self.state == "importing":
            self.cancel()  # Esc while importing: stop it first, the dialog stays to say so
            return
        if self._task is not None:
            self._task.cancel()
        super().reject()


def result_text(result: Any) -> str:
    """The status line after an import: "Imported 12 new chats (340 messages)."."""
    chats = _n(result.new_chats, translate("Import", "{n} new chat"), translate("Import", "{n} new chats"))
    messages = _n(result.new_messages, translate("Import", "{n} message"), translate("Import", "{n} messages"))
    if result.updated_chats:
        return translate("Import", "Imported {chats} and new messages into {updated} ({messages}).").format(
            chats=chats, messages=messages, updated=_n(result.updated_chats, translate("Import", "{n} chat"),
                                                       translate("Import", "{n} chats")))
    return translate("Import", "Imported {chats} ({messages}).").format(chats=chats, messages=messages)


def ask_export_all_path(parent: QWidget, folder: Path) -> tuple[str, str] | None:
    """Ask where to write every chat, and in which format (by the filter chosen or the file's suffix)."""
    labels = {
        "json": translate("Import", "JSON, every branch, re-importable (*.json)"),
        "md": translate("Import", "Markdown (*.md)"),
        "html": translate("Import", "Web page (*.html)"),
    }
    path, chosen = QFileDialog.getSaveFileName(parent, translate("Import", "Export all chats"),
                                               str(folder / "desktop-agent-chats.json"),
                                               ";;".join(labels.values()))
    if not path:
        return None
    by_suffix = {".json": "json", ".md": "md", ".html": "html", ".htm": "html"}
    fmt = by_suffix.get(Path(path).suffix.lower()) or next((f for f, label in labels.items() if label == chosen),
                                                             "json")
    return path, fmt


def export_all(store: Any, path: str, fmt: str, tasks: TaskRunner, on_done: Any) -> Task:
    """Write every chat to ``path`` as ``fmt`` in the background; ``on_done(count, error)`` on the GUI thread."""
    from desktop_agent.core.store.chatfiles import atomic_write_text

    def work(task: Task) -> int:
        text = store.export_chats(None, fmt, cancel=task.cancel_event)
        atomic_write_text(path, text)
        return store.count()

    return tasks.run(work, on_done, key="export-all")


#: where the window remembers the folder of the last export or import (in window.ini)
LAST_FOLDER_KEY = "history/last_folder"


def _window_ini() -> QSettings:
    return QSettings(str(paths.config_dir() / "window.ini"), QSettings.Format.IniFormat)


def last_folder() -> Path:
    """Where the export and import dialogs open: the folder of the last export or import (if it still exists),
    else the home folder."""
    try:
        value = _window_ini().value(LAST_FOLDER_KEY, "")
    except Exception:  # noqa: BLE001 - a damaged window.ini only loses the remembered folder
        value = ""
    folder = Path(value) if isinstance(value, str) and value else None
    return folder if folder is not None and folder.is_dir() else Path.home()


def remember_folder(folder: Path) -> None:
    """Remember ``folder`` for the next export or import dialog."""
    try:
        qs = _window_ini()
        qs.setValue(LAST_FOLDER_KEY, str(folder.resolve()))
        qs.sync()
    except Exception:  # noqa: BLE001 - not remembering the folder must not fail an export or import
        pass
