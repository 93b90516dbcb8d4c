"""The Settings dialog's Ollama page: the host (with Test connection and the ``OLLAMA_HOST`` note), the
answer timeout, the installed models (:mod:`.models_box`) and pulling a model (:mod:`.pull_box`).

Every request goes through :meth:`Assembly.one_off_backend` with the host being edited (Ollama API:
``/api/version``, ``/api/tags``, ``/api/delete``; pulls through the window's pull controller).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from pydantic import ValidationError
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLineEdit, QMessageBox, QPushButton, QVBoxLayout

from desktop_agent.core.assembly import PROBE_TIMEOUT_S, Assembly
from desktop_agent.core.settings import Settings
from desktop_agent.core.urls import clean_ollama_host
from desktop_agent.ui.errors import one_line
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.pull import PullController
from desktop_agent.ui.settings.common import (
    SettingsPage,
    form_row,
    hint_label,
    note_label,
    parse_seconds,
    show,
    show_cleaned_url,
)
from desktop_agent.ui.settings.models_box import ModelsBox
from desktop_agent.ui.settings.pull_box import PullBox
from desktop_agent.ui.tasks import Task, TaskRunner

if TYPE_CHECKING:
    from desktop_agent.core.backends.ollama import OllamaBackend
    from desktop_agent.core.backends.probe import OllamaProbe


def _ollama(assembly: Assembly, target: Settings) -> OllamaProbe:
    """A one-off probe of the Ollama server of ``target`` (Test connection, listing: seconds, not minutes)."""
    return cast("OllamaProbe", assembly.one_off_backend(target, probe=True))


class OllamaPage(SettingsPage):
    """``model_chosen(name)``: the user picked an installed model for chats; ``connection_tested(names)``: Test
    connection worked and ``names`` are installed; ``models_listed(names)``:
    the installed models, as listed by the server."""

    model_chosen = Signal(str)
    models_listed = Signal(list)
    connection_tested = Signal(list)

    def __init__(self, assembly: Assembly, tasks: TaskRunner, pull: PullController, *,
                 host_note: tuple[str | None, str] = (None, "info")):
        super().__init__()
        #: the note about OLLAMA_HOST and its kind (:meth:`desktop_agent.core.services.Services.ollama_host_note`)
        self._host_note = host_note
        self._connected = ""  # the last Test connection's result
        self._assembly = assembly
        self._tasks = tasks
        self._base = Settings()
        self._loading = False
        layout = QVBoxLayout(self)

        form = QFormLayout()
        host_row = QHBoxLayout()
        self.host = QLineEdit()
        self.host.setPlaceholderText("http://localhost:11434")
        self.host.setAccessibleName(translate("OllamaPage", "Ollama host URL"))
        self.test_button = QPushButton(translate("OllamaPage", "&Test connection"))
        self.test_button.setAccessibleName(translate("OllamaPage", "Test the Ollama connection"))
        self.test_button.setAutoDefault(False)
        host_row.addWidget(self.host, 1)
        host_row.addWidget(self.test_button)
        self.host_error = note_label(translate("OllamaPage", "Ollama host error"))
        self.status = note_label(translate("OllamaPage", "Ollama connection status"))
        self.host_note = note_label(translate("OllamaPage", "Ollama host note"))
        self.host_used = note_label(translate("OllamaPage", "Ollama host in use"))
        form_row(form, translate("OllamaPage", "&Host:"), host_row, self.host_error, self.host_used, self.host_note,
                self.status,
                 buddy=self.host)
        self.timeout = QLineEdit()
        self.timeout.setAccessibleName(translate("OllamaPage", "Answer timeout in seconds"))
        self.timeout.setToolTip(
            translate("OllamaPage",
                    "Seconds to wait for the first data of an answer before giving up (it includes loading the "
            "model, which can take minutes for a large model)")
        )
        self.timeout.setFixedWidth(110)
        self.timeout_error = note_label(translate("OllamaPage", "Answer timeout error"))
        self.timeout_hint = hint_label(translate("OllamaPage",
                "seconds to wait for an answer to start (model loading), e.g. 300"))
        timeout_row = QHBoxLayout()
        timeout_row.addWidget(self.timeout)
        timeout_row.addWidget(self.timeout_hint, 1)
        form_row(form, translate("OllamaPage", "Ans&wer timeout (s):"), timeout_row, self.timeout_error,
                buddy=self.timeout)
        self.next_data = QLineEdit()
        self.next_data.setAccessibleName(translate("OllamaPage", "Wait for next data in seconds"))
        self.next_data.setToolTip(
            translate("OllamaPage",
                    "Once an answer streams: seconds without new data (keep-alives do not count) before the turn "
            "ends with the partial answer kept and \"the server stopped responding\"")
        )
        self.next_data.setFixedWidth(110)
        self.next_data_error = note_label(translate("OllamaPage", "Wait for next data error"))
        next_row = QHBoxLayout()
        next_row.addWidget(self.next_data)
        next_row.addWidget(hint_label(translate("OllamaPage",
                "seconds of silence mid-answer before it stops, e.g. 60")), 1)
        form_row(form, translate("OllamaPage", "Wait for ne&xt data (s):"), next_row, self.next_data_error,
                buddy=self.next_data)
        layout.addLayout(form)

        self.models = ModelsBox()
        layout.addWidget(self.models, 1)
        self.pull = PullBox(pull)
        layout.addWidget(self.pull)

        self.fields = [
            (("ollama.host",), self.host_error, translate("OllamaPage", "Host (Ollama tab)")),
            (("ollama.timeout_s",), self.timeout_error, translate("OllamaPage", "Answer timeout (Ollama tab)")),
            (("ollama.next_data_timeout_s",), self.next_data_error, translate("OllamaPage",
                    "Wait for next data (Ollama tab)")),
        ]
        self.host.textChanged.connect(self._host_edited)
        self.timeout.textChanged.connect(self.changed)
        self.next_data.textChanged.connect(self.changed)
        self.test_button.clicked.connect(self.test_connection)
        self.models.refresh_requested.connect(lambda: self.refresh_models(quiet=False))
        self.models.use_requested.connect(self._use_model)
        self.models.delete_requested.connect(self._delete_model)
        self.pull.pull_requested.connect(self.start_pull)
        self.pull.pulled.connect(self._pulled)

    # ---- values in and out -----------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        self._loading = True
        try:
            self._base = settings
            self.host.setText(settings.ollama.host)
            self.timeout.setText(f"{settings.ollama.timeout_s:g}")
            self.next_data.setText(f"{settings.ollama.next_data_timeout_s:g}")
            show(self.host_note, *self._host_note)
        finally:
            self._loading = False

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ollama.host": self.host.text().strip()}
        timeout, _problem = parse_seconds(self.timeout, "300")
        if timeout is not None:
            out["ollama.timeout_s"] = timeout
        next_data, _problem = parse_seconds(self.next_data, "60")
        if next_data is not None:
            out["ollama.next_data_timeout_s"] = next_data
        return out

    def input_errors(self) -> dict[str, str]:
        errors: dict[str, str] = {}
        if not self.host.text().strip():
            errors["ollama.host"] = translate("OllamaPage", "Enter the Ollama host, e.g. http://localhost:11434")
        _timeout, problem = parse_seconds(self.timeout, "300")
        if problem:
            errors["ollama.timeout_s"] = problem
        _next_data, problem = parse_seconds(self.next_data, "60")
        if problem:
            errors["ollama.next_data_timeout_s"] = problem
        return errors

    def _target(self) -> Settings | None:
        """The settings to reach the host being edited (None while the host is not a valid URL)."""
        host = self.host.text().strip()
        if not host:
            return None
        try:
            return self._base.updated({"backend": "ollama", "ollama.host": host})
        except ValidationError:
            return None

    def _host_edited(self) -> None:
        show_cleaned_url(self.host_used, self.host.text(), clean_ollama_host)
        self.changed.emit()
        if not self._loading:
            for key in ("ollama-test", "ollama-list"):  # a result about another host would mislead
                self._tasks.drop(key)
            self.test_button.setEnabled(True)
            show(self.status, None)

    # ---- connection and models -------------------------------------------------------------------

    def test_connection(self) -> None:
        """Test connection: the server version and the installed models, or the actionable error."""
        target = self._target()
        if target is None:
            show(self.status, translate("OllamaPage", "Enter a valid host URL first."), "err")
            return
        host, assembly = target.ollama.host, self._assembly

        def work(_task: Task) -> tuple[str, list[Any]]:
            backend = _ollama(assembly, target)
            try:
                return backend.server_version(), backend.list_models()
            finally:
                backend.close()

        def done(result: Any, error: BaseException | None) -> None:
            self.test_button.setEnabled(True)
            if error is not None:
                # a warning, not a block: the user may be setting up a host that is not running yet
                show(self.status, one_line(error), "warn")
                return
            version, models = result
            self._fill(models)
            n = len(models)
            self._connected = (
                translate("OllamaPage", "Connected to Ollama {version} at {host} — %n model installed.", None, n)
                if n == 1 else
                translate("OllamaPage", "Connected to Ollama {version} at {host} — %n models installed.", None, n)
            ).format(version=version, host=host)
            show(self.status, self._connected, "ok")
            self.connection_tested.emit([m.name for m in models])

        self.test_button.setEnabled(False)
        show(self.status, translate("OllamaPage", "Connecting to {host}…").format(host=host), "info")
        self._tasks.run(work, done, key="ollama-test")

    def refresh_models(self, quiet: bool = False) -> None:
        """List the installed models; ``quiet``: the dialog just opened (a host that does not answer
        yet is said more gently)."""
        target = self._target()
        if target is None:
            return

        def done(models: Any, error: BaseException | None) -> None:
            if error is None:
                self._fill(models)
            elif quiet:
                show(self.status, translate("OllamaPage",
                        "{error} Installed models are listed once it answers.").format(error=one_line(error)),
                                "warn")
            else:
                show(self.status, one_line(error), "warn")

        self._tasks.run(self._list_work(target), done, key="ollama-list")

    def _list_work(self, target: Settings) -> Any:
        assembly = self._assembly

        def work(_task: Task) -> list[Any]:
            backend = _ollama(assembly, target)
            try:
                return backend.list_models()
            finally:
                backend.close()

        return work

    def _fill(self, models: list[Any]) -> None:
        self.models.fill(models)
        self.models_listed.emit([m.name for m in models])

    def model_replaced(self, old: str, new: str) -> None:
        """Say that the model ``old`` is not installed on the server just tested, so chats will use ``new``."""
        show(self.status, translate("OllamaPage",
                "{connected} “{old}” is not installed: chats will use {new} (after Save), or pull {old} below."
                ).format(connected=self._connected, old=old, new=new), "ok")

    def _use_model(self, name: str) -> None:
        show(self.status, translate("OllamaPage", "Chats will use {name} (after Save).").format(name=name), "ok")
        self.model_chosen.emit(name)

    def _confirm_delete(self, name: str) -> bool:
        answer = QMessageBox.question(
            self,
            translate("OllamaPage", "Delete model"),
            translate("OllamaPage",
                    "Delete the model “{name}” from the Ollama server?\nIt has to be pulled again to be used.").format(
                            name=name),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _delete_model(self, name: str) -> None:
        target = self._target()
        if target is None or not self._confirm_delete(name):
            return
        assembly = self._assembly

        def work(_task: Task) -> list[Any]:
            # deleting goes through the client library (the probe only lists); seconds, not minutes
            backend = cast("OllamaBackend", assembly.one_off_backend(target,
                    timeout_s=PROBE_TIMEOUT_S))
            try:
                backend.delete_model(name)
                return backend.list_models()
            finally:
                backend.close()

        def done(models: Any, error: BaseException | None) -> None:
            if error is not None:
                show(self.status, one_line(error), "err")
                self.models.update_buttons()
                return
            self._fill(models)
            show(self.status, translate("OllamaPage", "Deleted {name}.").format(name=name), "ok")

        self.models.delete_button.setEnabled(False)
        self._tasks.run(work, done, key="ollama-delete")

    # ---- pull ------------------------------------------------------------------------------------

    def start_pull(self, name: str) -> None:
        """Pull ``name`` from the host being edited, with a progress bar. Does nothing while another
        pull runs."""
        self.pull.start(self._target(), name)

    def _pulled(self, name: str) -> None:
        """A pull ended: list the models (the new one among them), then say it is done."""
        target = self._target()
        if target is None:
            self.pull.show_pulled(name)
            return

        def done(models: Any, error: BaseException | None) -> None:
            if error is None:
                self._fill(models)
            else:
                show(self.status, one_line(error), "warn")
            self.pull.show_pulled(name)

        self._tasks.run(self._list_work(target), done, key="ollama-pulled")
