"""Listing the server's models in the background: the window's server check.

:class:`ModelListing` asks the server (through the assembly, as a probe: it answers within the Test
connection time, no retries) for its models and version on the window's task runner, and reports with
``started()``, ``listed(models, version)`` or ``failed(error)``. While a chat turn runs, a listing waits until
it has ended — a second request mid-stream makes some servers (llama-cpp-python's) cut the running answer
short — and the asks made meanwhile give one listing, with the settings current then.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop_agent.core.assembly import Assembly
from desktop_agent.core.settings import Settings
from desktop_agent.ui.tasks import TaskRunner

log = logging.getLogger(__name__)


#: at most this many models are asked what they can do (Ollama: one /api/show each)
MAX_FACTS = 30


def model_facts(backend: Any, models: list[str]) -> dict[str, Any]:
    """What the server says about each of ``models`` (asked once per process; never raises)."""
    from desktop_agent.core import state
    from desktop_agent.core.model_info import facts_key

    out = {}
    for name in models[:MAX_FACTS]:
        if getattr(backend, "name", "") == "openai":  # the listing itself said what it could
            out[name] = state.FACTS.peek(facts_key(backend, name))
        else:
            out[name] = state.facts_for(backend, name)
    return {k: v for k, v in out.items() if v is not None}


class ModelListing(QObject):
    started = Signal()
    listed = Signal(list, str)
    #: what the servers say about the listed models (name → ModelFacts), after ``listed``
    facts = Signal(dict)
    failed = Signal(object)

    def __init__(self, assembly: Assembly, tasks: TaskRunner, settings: Callable[[], Settings],
                 busy: Callable[[], bool], parent: QObject | None = None):
        super().__init__(parent)
        self.assembly = assembly
        self.tasks = tasks
        self._settings = settings
        self._busy = busy
        #: callbacks waiting for the next listing to end (whether it worked or not)
        self._thens: list[Callable[[], None]] = []
        self._deferred = False
        self.closed = False

    def refresh(self, then: Callable[[], None] | None = None) -> None:
        """List the models now, or when the running turn has ended; ``then`` runs (GUI thread) after."""
        if then is not None:
            self._thens.append(then)
        if self._busy():
            self._deferred = True
            return
        self._deferred = False
        settings = self._settings()
        self.started.emit()

        def job(_task: Any) -> tuple[list[str], str, dict[str, Any]]:
            first = self.assembly.probe_keys_first(settings)  # a local server: no keyring read for it
            if first is None:
                return listing(None)
            from desktop_agent.core.errors import AuthenticationFailed, NoApiKey

            try:
                return listing(first)
            except (AuthenticationFailed, NoApiKey):  # it wants a key after all: the stored ones
                return listing(None)

        def listing(keys: tuple[str, ...] | None) -> tuple[list[str], str, dict[str, Any]]:
            backend = self.assembly.one_off_backend(settings, probe=True, keys=keys)
            try:
                models = [m.name for m in backend.list_models()]
                facts = model_facts(backend, models)
                version_of = getattr(backend, "server_version", None)
                version = ""
                if callable(version_of):
                    try:
                        version = str(version_of())
                    except Exception:  # noqa: BLE001 - an old server without /api/version still lists its models
                        version = ""
                return models, version, facts
            finally:
                backend.close()

        def done(result: Any, error: BaseException | None) -> None:
            if self.closed:
                return
            if error is not None:
                from desktop_agent.core.errors import AgentError

                if not isinstance(error, AgentError):
                    log.warning("listing models failed", exc_info=error)
                self.failed.emit(error)
            else:
                models, version, facts = result
                self.listed.emit(models, version)
                self.facts.emit(facts)
            thens, self._thens = self._thens, []
            for fn in thens:
                fn()

        self.tasks.run(job, done, key="list-models")

    def turn_ended(self) -> None:
        """Run the listing that waited for the turn, if any."""
        if self._deferred and not self.closed:
            self.refresh()
