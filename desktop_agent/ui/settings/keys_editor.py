"""The OpenAI-compatible page's API keys: the masked list, a field to paste a new key, Add / Remove, and
where the keys live.

- Each base URL has its own keys; the list follows the base URL being edited (:meth:`KeysEditor.follow`,
  after a short pause in typing). Reading a provider's keys can wait on a keyring unlock prompt, so it
  runs in the background; a key added meanwhile is added once they are read.
- Keys are shown masked (:func:`~desktop_agent.core.secrets.mask_key`) with where each one lives ("system
  keyring" / "environment" / "this session only") and, when no keyring is usable, why and what to do
  instead. Keys never go into the settings file: :meth:`KeysEditor.save` hands them to the
  :class:`~desktop_agent.core.secrets.SecretStore`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.secrets import SESSION_ONLY, SYSTEM_KEYRING, SecretStore, api_key_problem, mask_key
from desktop_agent.ui.errors import one_line
from desktop_agent.ui.i18n import translate
from desktop_agent.ui.settings.common import ActionLineEdit, on_delete_key, set_text
from desktop_agent.ui.tasks import Task, TaskRunner

#: milliseconds without typing in the base URL before the keys list follows it
FOLLOW_DELAY_MS = 400


class KeysEditor(QWidget):
    """``changed``: the keys of the shown provider changed (added, removed, read); ``refused(text)``: a
    pasted key was refused (it would fail every request), ``text`` says why."""

    changed = Signal()
    refused = Signal(str)

    def __init__(self, secrets: SecretStore, tasks: TaskRunner):
        super().__init__()
        self._secrets = secrets
        self._tasks = tasks
        #: normalised base URL → the keys shown/edited for it; where they live; which were changed
        self._keys_url = ""
        self._keys_by_url: dict[str, list[str]] = {}
        self._key_where: dict[str, str] = {}
        self._dirty_urls: set[str] = set()
        self._env_key: str | None = None
        self._loaded = False
        self._add_when_loaded = False  # Enter/Add pressed while the keys list was loading
        self._where_text = ""
        self._pending_url: str | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.list = QListWidget()
        self.list.setAccessibleName(translate("KeysEditor", "API keys (masked)"))
        self.list.setMaximumHeight(96)
        layout.addWidget(self.list)
        row = QHBoxLayout()
        self.new_key = ActionLineEdit()
        self.new_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.new_key.setPlaceholderText(translate("KeysEditor", "Paste a new API key"))
        self.new_key.setAccessibleName(translate("KeysEditor", "New API key"))
        self.add_button = QPushButton(translate("KeysEditor", "A&dd key"))
        self.add_button.setAccessibleName(translate("KeysEditor", "Add the API key"))
        self.remove_button = QPushButton(translate("KeysEditor", "Re&move key"))
        self.remove_button.setAccessibleName(translate("KeysEditor", "Remove the selected API key"))
        for b in (self.add_button, self.remove_button):
            b.setAutoDefault(False)
        row.addWidget(self.new_key, 1)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        layout.addLayout(row)
        self.where = QLabel(translate("KeysEditor", "Reading keys…"))
        self.where.setWordWrap(True)
        self.where.setAccessibleName(translate("KeysEditor", "Where the API keys live"))
        self.where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.where)

        self.new_key.activated.connect(self.add_key)
        self.new_key.textChanged.connect(self._update_buttons)
        self.add_button.clicked.connect(self.add_key)
        self.remove_button.clicked.connect(self.remove_key)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        on_delete_key(self.list, self.remove_key)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(FOLLOW_DELAY_MS)
        self._timer.timeout.connect(self.follow_now)

    # ---- state -----------------------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """The keys of the shown provider have been read."""
        return self._loaded

    @property
    def environment_key(self) -> str | None:
        return self._env_key

    def api_keys(self) -> list[str]:
        """The keys listed for the base URL being edited (unsaved changes included)."""
        return list(self._keys_by_url.get(self._keys_url, []))

    def all_keys(self) -> list[str]:
        """Every key the editor knows (to mask them in any text shown)."""
        keys = [k for ks in self._keys_by_url.values() for k in ks]
        if self._env_key:
            keys.append(self._env_key)
        return keys

    def save_target(self) -> str:
        """Where Save will keep new keys (as far as known now)."""
        return SYSTEM_KEYRING if self._secrets.problem is None else SESSION_ONLY

    # ---- following the base URL --------------------------------------------------------------------

    def show_url(self, url: str) -> None:
        """Show the keys of ``url`` (a normalised base URL) now."""
        self._pending_url = url
        self.follow_now()

    def follow(self, url: str | None) -> None:
        """The base URL was edited to ``url`` (normalised; None while it is not a URL): the list follows
        it after a short pause."""
        self._pending_url = url
        self._timer.start()

    def follow_now(self) -> None:
        """Switch to the base URL edited last, without waiting for the pause."""
        self._timer.stop()
        url = self._pending_url
        if not url or url == self._keys_url:
            return
        self._keys_url = url
        if url in self._keys_by_url:
            self._render()
        else:
            self._load(url)

    def shutdown(self) -> None:
        self._timer.stop()

    def _load(self, url: str) -> None:
        store = self._secrets
        self._loaded = False
        self.list.clear()
        self.where.setText(translate("KeysEditor", "Reading keys…"))
        self._update_buttons()

        def work(_task: Task) -> tuple[str, list[str], str, str | None, str]:
            keys, where = store.stored_api_keys(url)
            return url, keys, where, store.environment_key(), store.describe(url)

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None:  # SecretStore never raises; this is a bug path, still no crash
                self._loaded = True
                self._where_text = one_line(error, self.all_keys())
                self._render()
                self._add_pending_key()
                return
            loaded_url, keys, where, env_key, describe = result
            self._keys_by_url.setdefault(loaded_url, keys)
            self._key_where[loaded_url] = where
            self._env_key = env_key
            self._where_text = describe
            if loaded_url == self._keys_url:
                self._loaded = True
                self._render()
                self.changed.emit()
                self._add_pending_key()

        self._tasks.run(work, done, key="keys-load")

    def _render(self) -> None:
        url = self._keys_url
        where = self._key_where.get(url, SYSTEM_KEYRING)
        self.list.clear()
        for key in self._keys_by_url.get(url, []):
            saved = url not in self._dirty_urls
            suffix = where if saved else translate("KeysEditor",
                    "not saved yet — Save keeps it in: {save_target}").format(save_target=self.save_target())
            item = QListWidgetItem(f"{mask_key(key)}    ({suffix})")
            item.setData(Qt.ItemDataRole.UserRole, key)
            item.setData(Qt.ItemDataRole.AccessibleTextRole, f"API key {mask_key(key)}, {suffix}")
            self.list.addItem(item)
        if self._env_key:
            item = QListWidgetItem(translate("KeysEditor", "{key}    (environment: OPENAI_API_KEY)").format(
                    key=mask_key(self._env_key)))
            item.setData(Qt.ItemDataRole.UserRole, None)
            item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
            item.setToolTip(translate("KeysEditor",
                    "Read from the OPENAI_API_KEY environment variable; change it there."))
            self.list.addItem(item)
        set_text(self.where, self._where_text)
        self._update_buttons()

    def _update_buttons(self) -> None:
        self.add_button.setEnabled(self._loaded and bool(self.new_key.text().strip()))
        # The key field stays enabled while the keys list loads (a keyring read can take a while,
        # or wait on an unlock prompt): disabling it would move the focus away mid-typing and send
        # the rest of a typed or pasted key to the next field.
        item = self.list.currentItem()
        self.remove_button.setEnabled(
            self._loaded and item is not None and item.isSelected() and item.data(Qt.ItemDataRole.UserRole) is not None
        )

    # ---- editing ---------------------------------------------------------------------------------

    def add_key(self) -> None:
        key = self.new_key.text().strip()
        if not key:
            return
        problem = api_key_problem(key)
        if problem:  # would fail every request (and could show up escaped in an error text)
            self.refused.emit(problem)
            return
        if self._timer.isActive():  # the base URL was just edited: the key belongs to the new one
            self.follow_now()
        if not self._loaded:  # added as soon as this provider's keys are read
            self._add_when_loaded = True
            return
        keys = self._keys_by_url.setdefault(self._keys_url, [])
        self.new_key.clear()
        if key in keys:
            return
        keys.append(key)
        self._dirty_urls.add(self._keys_url)
        self._render()
        self.changed.emit()

    def _add_pending_key(self) -> None:
        if self._add_when_loaded:
            self._add_when_loaded = False
            self.add_key()

    def remove_key(self) -> None:
        item = self.list.currentItem()
        key = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not key:
            return
        keys = self._keys_by_url.setdefault(self._keys_url, [])
        if key in keys:
            keys.remove(key)
            self._dirty_urls.add(self._keys_url)
        self._render()
        self.changed.emit()

    # ---- saving ----------------------------------------------------------------------------------

    def save(self, on_saved: Callable[[dict[str, str], bool], None], on_failed: Callable[[str], None]) -> bool:
        """Save the changed keys in the background. ``on_saved(where_by_url, lost)``: where each
        provider's keys live now; ``lost``: the keyring failed while saving, so keys meant for it are
        kept for this session only. False (and nothing happens) when no key was changed."""
        changes = {url: list(self._keys_by_url.get(url, [])) for url in self._dirty_urls}
        if not changes:
            return False
        store = self._secrets
        expected = self.save_target()
        shown_url = self._keys_url

        def work(_task: Task) -> tuple[dict[str, str], str]:
            where_by_url = {url: store.set_api_keys(keys, url) for url, keys in changes.items()}
            return where_by_url, store.describe(shown_url)

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None:
                on_failed(one_line(error, self.all_keys()))
                return
            where_by_url, describe = result
            self._dirty_urls.clear()
            self._key_where.update(where_by_url)
            self._where_text = describe
            lost = any(
                changes[url] and where == SESSION_ONLY and expected == SYSTEM_KEYRING
                for url, where in where_by_url.items()
            )
            if lost:
                self._render()
            on_saved(where_by_url, lost)

        self._tasks.run(work, done, key="keys-save")
        return True
