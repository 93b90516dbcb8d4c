"""Settings → Tools → Learned: what the app learned about each server and model from their answers (tools off
for a model that answered nothing when offered them twice in a row, answers not streamed when tools are offered,
and the evidence so far — :mod:`desktop_agent.core.capabilities`), one row per server and model with its own
Forget button, and Forget all. Forgetting applies at once (the file is written then, and a chat's next message
offers the tools again); it is not part of the dialog's Save."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.capabilities import Capabilities, Entry, ServerKey
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import hint_label

#: how the Server column names a backend
BACKEND_NAMES = {"ollama": "Ollama", "openai": QT_TRANSLATE_NOOP("LearnedBox", "OpenAI-compatible")}


class _CompactTable(QTableWidget):
    """A table that asks for little height; it grows into the page's free space."""

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(hint.width(), self.minimumHeight())


class LearnedBox(QWidget):
    """The rows of ``capabilities`` (default: the process-wide store, in the cache folder); ``changed`` after a
    Forget."""

    COLS = (QT_TRANSLATE_NOOP("LearnedBox", "Model and server"), QT_TRANSLATE_NOOP("LearnedBox", "What was learned"),
            "")

    changed = Signal()

    def __init__(self, capabilities: Capabilities | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if capabilities is None:
            from desktop_agent.core.assembly import learned_capabilities

            capabilities = learned_capabilities()
        self.capabilities = capabilities
        self.rows: list[Entry] = []
        #: the Forget button of each row, by (backend, URL, model)
        self.forget_buttons: dict[ServerKey, QPushButton] = {}
        lay = QVBoxLayout(self)
        lay.addWidget(hint_label(
            translate("LearnedBox",
                    "What the app learned from each model's answers, so that it stops asking in a way that does not "
                    "work. "
            "Tools go off for a model only after it answered nothing when offered them twice in a row (or its "
            "server said it cannot use them). Forget it after upgrading the server or the model: the next "
            "message offers the tools again. Applies at once.")))
        self.table = _CompactTable(0, len(self.COLS))
        self.table.setAccessibleName(translate("LearnedBox", "What was learned about servers and models"))
        self.table.setHorizontalHeaderLabels([translate("LearnedBox", c) if c else "" for c in self.COLS])
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.setMinimumHeight(96)
        self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the Forget buttons
        header = self.table.horizontalHeader()
        for col in (0, 2):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        lay.addWidget(self.table, 1)
        self.empty = QLabel(translate("LearnedBox", "Nothing learned: every model is offered tools, streamed."))
        self.empty.setAccessibleName(translate("LearnedBox", "Nothing learned"))
        self.forget_all_button = QPushButton(translate("LearnedBox", "Forget &all"))
        self.forget_all_button.setAccessibleName(translate("LearnedBox",
                "Forget everything learned about servers and models"))
        self.forget_all_button.setAutoDefault(False)
        self.forget_all_button.clicked.connect(self.forget_all)
        foot = QHBoxLayout()
        foot.addWidget(self.empty)
        foot.addStretch(1)
        foot.addWidget(self.forget_all_button)
        lay.addLayout(foot)
        self.refresh()

    def refresh(self) -> None:
        """Show what is learned now (another process may have changed it)."""
        self.rows = self.capabilities.entries()
        self.forget_buttons = {}
        self.table.setRowCount(len(self.rows))
        for i, entry in enumerate(self.rows):
            where = f"{translate('LearnedBox', BACKEND_NAMES.get(entry.backend, entry.backend))} · {entry.url}"
            model = QTableWidgetItem(f"{entry.model}\n{where}")
            model.setToolTip(translate("LearnedBox", "{model} at {where}").format(model=entry.model, where=where))
            self.table.setItem(i, 0, model)
            self.table.setItem(i, 1, QTableWidgetItem("\n".join(entry.lines())))
            button = QPushButton(translate("LearnedBox", "Forget"))
            button.setAutoDefault(False)
            button.setAccessibleName(translate("LearnedBox", "Forget what was learned about {model} at {url}").format(
                    model=entry.model, url=entry.url))
            button.clicked.connect(lambda _on=False, key=entry.key: self.forget(key))
            cell = QWidget()  # the button keeps its own size, at the top of a tall row
            cell_layout = QVBoxLayout(cell)
            cell_layout.setContentsMargins(4, 4, 4, 4)
            cell_layout.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
            self.table.setCellWidget(i, 2, cell)
            self.forget_buttons[entry.key] = button
        self.table.resizeRowsToContents()
        self.empty.setVisible(not self.rows)
        self.forget_all_button.setEnabled(bool(self.rows))

    def forget(self, key: ServerKey) -> None:
        """Forget what was learned about the server and model of ``key`` (written at once)."""
        self.capabilities.forget(key)
        self.refresh()
        self.changed.emit()

    def forget_all(self) -> None:
        """Forget everything learned (written at once)."""
        self.capabilities.forget()
        self.refresh()
        self.changed.emit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh()
