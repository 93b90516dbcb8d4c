"""The Ollama page's "Pull a model" box: a name, Pull / Cancel pull, a progress bar and a status line, on
the window's :class:`~desktop_agent.ui.pull.PullController`. The box follows only the pulls it started."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout

from desktop_agent.core.settings import Settings
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.pull import PullController
from desktop_agent.ui.settings.common import ActionLineEdit, human_size, note_label, show


class PullBox(QGroupBox):
    """``pull_requested(name)``: Pull or Enter in the name field (the page supplies the host and calls
    :meth:`start`). ``pulled(name)``: a pull this box started has finished; the page lists the models,
    then calls :meth:`show_pulled`."""

    pull_requested = Signal(str)
    pulled = Signal(str)

    def __init__(self, controller: PullController):
        super().__init__(translate("PullBox", "Pull a model"))
        self._controller = controller
        self._mine = False  # the controller's pull was started here
        self._name = ""
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.name = ActionLineEdit()
        self.name.setPlaceholderText(translate("PullBox", "Model name, e.g. llama3.2 or qwen3:8b"))
        self.name.setAccessibleName(translate("PullBox", "Name of the model to pull"))
        self.pull_button = QPushButton(translate("PullBox", "&Pull"))
        self.pull_button.setAccessibleName(translate("PullBox", "Pull the model"))
        self.cancel_button = QPushButton(translate("PullBox", "Cancel pull"))
        self.cancel_button.setAccessibleName(translate("PullBox", "Cancel the pull"))
        for b in (self.pull_button, self.cancel_button):
            b.setAutoDefault(False)
        row.addWidget(self.name, 1)
        row.addWidget(self.pull_button)
        row.addWidget(self.cancel_button)
        layout.addLayout(row)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setAccessibleName(translate("PullBox", "Pull progress"))
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        layout.addWidget(self.progress)
        self.status = note_label(translate("PullBox", "Pull status"))
        layout.addWidget(self.status)
        self.cancel_button.setVisible(False)

        self.name.textChanged.connect(self.update_buttons)
        self.name.activated.connect(self._pull_clicked)
        self.pull_button.clicked.connect(self._pull_clicked)
        self.cancel_button.clicked.connect(self.cancel)
        controller.progress.connect(self._on_progress)
        controller.finished.connect(self._on_finished)
        controller.failed.connect(self._on_failed)
        controller.cancelled.connect(self._on_cancelled)
        self._listening = True
        self.update_buttons()

    # ---- asked by the page ------------------------------------------------------------------------

    def pulling(self) -> bool:
        """True while a pull started here runs."""
        return self._mine

    def working(self) -> bool:
        """True while the thread of a pull started here has not returned (it may outlive the box's
        interest after :meth:`shutdown`)."""
        return self._mine and not self._controller.wait(0)

    def start(self, settings: Settings | None, name: str) -> None:
        """Pull ``name`` from the Ollama host of ``settings`` (None: the host field is invalid). Does
        nothing while a pull runs."""
        if self._mine:
            return
        self.name.setText(name)
        if settings is None:
            show(self.status, translate("PullBox", "Enter a valid Ollama host first."), "err")
            return
        if self._controller.busy:
            show(self.status, translate("PullBox",
                    "Another pull is running ({model}); try again when it is done.").format(
                            model=self._controller.model),
                 "warn")
            return
        if not self._controller.start(settings, name):
            return
        self._mine = True
        self._name = name
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.cancel_button.setVisible(True)
        show(self.status, translate("PullBox", "Pulling {name}…").format(name=name), "info")
        self.update_buttons()
        self.cancel_button.setFocus()

    def cancel(self) -> None:
        """Stop the running pull (the HTTP stream is closed; the dialog stays usable)."""
        if self._mine:
            self._controller.cancel()
            self.cancel_button.setEnabled(False)
            show(self.status, translate("PullBox", "Cancelling…"), "info")
            QTimer.singleShot(0, self.cancel_button, lambda: self.cancel_button.setEnabled(True))

    def show_pulled(self, name: str) -> None:
        show(self.status, translate("PullBox", "Pulled {name}.").format(name=name), "ok")
        self.name.clear()

    def show_status(self, text: str | None, kind: str = "info") -> None:
        show(self.status, text, kind)

    def shutdown(self, wait_s: float) -> bool:
        """The dialog closes: cancel a pull started here, wait for its thread (at most ``wait_s``) and
        stop listening to the controller. True when no pull thread of this box runs any more."""
        if self._mine:
            self._controller.cancel()
        finished = self._controller.wait(wait_s) if self._mine else True
        if self._listening:
            self._listening = False
            self._controller.progress.disconnect(self._on_progress)
            self._controller.finished.disconnect(self._on_finished)
            self._controller.failed.disconnect(self._on_failed)
            self._controller.cancelled.disconnect(self._on_cancelled)
        return finished

    def update_buttons(self) -> None:
        self.pull_button.setEnabled(bool(self.name.text().strip()) and not self._mine)
        self.name.setEnabled(not self._mine)

    # ---- the controller's signals -----------------------------------------------------------------

    def _pull_clicked(self) -> None:
        name = self.name.text().strip()
        if name:
            self.pull_requested.emit(name)

    def _on_progress(self, status: str, completed: int | None, total: int | None) -> None:
        if not self._mine:
            return
        if total is not None and total > 0:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(max(0.0, min(1.0, (completed or 0) / total)) * 1000))
        elif status == "success":
            self.progress.setRange(0, 1000)
            self.progress.setValue(1000)
        else:
            self.progress.setRange(0, 0)  # busy: this step has no size
        text = status or "working"
        if total:
            text += translate("PullBox", " — {done} of {total}").format(done=human_size(
                    completed or 0), total=human_size(total))
        show(self.status, text, "info")

    def _finish(self) -> None:
        self._mine = False
        self.cancel_button.setVisible(False)
        self.update_buttons()

    def _on_finished(self, name: str) -> None:
        if not self._mine:
            return
        self._finish()
        self.progress.setRange(0, 1000)
        self.progress.setValue(1000)
        self.pulled.emit(name)

    def _on_failed(self, message: str) -> None:
        if not self._mine:
            return
        self._finish()
        self.progress.setVisible(False)
        show(self.status, message, "err")

    def _on_cancelled(self) -> None:
        if not self._mine:
            return
        self._finish()
        self.progress.setVisible(False)
        show(self.status,
             translate("PullBox",
                     "Pull of {name} cancelled. Ollama keeps what was downloaded and resumes next time.").format(
                             name=self._name), "warn")
