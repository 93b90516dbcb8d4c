"""Services: the ONE composition root. Every terminal command opens the app through it (and the window will):
opened once from command-line flags (dotted settings), a data folder and the environment, it layers the
settings, owns the settings file, and holds — opened lazily, on first use — the secret store, the chat store,
the permission engine with its saved rules, the :class:`~desktop_agent.core.assembly.Assembly` (backend,
tools, agents) and the MCP servers; it hands out :class:`~desktop_agent.core.session.ChatSession`\\ s.

- **The environment is read here and only here** (:class:`AppEnv`, an immutable snapshot of the variables the
  app uses, defined in :mod:`.environment` — a module of its own below every module that needs it, so that
  ``paths``, ``secrets`` and the probe do not import the composition root); the values are handed down as
  parameters. Modules used without a ``Services`` (the window until
  it opens one, the tool host child) fall back to :func:`current_env` — still read here. The reads left
  elsewhere belong to another process or to Qt (:data:`OTHER_READERS`; a test keeps the code to that list).
- **Layering** (:func:`layer`): the settings file, then ``OLLAMA_HOST`` (read as Ollama reads it), then the
  flags. Only the file is ever written back.
- **Saves never lose another process's change**: a save writes only the keys the caller changed, on top of
  the file as it is now — re-read under an exclusive lock on a file beside it (:func:`save_changes`).
  :meth:`Services.settings_changed` and :meth:`Services.store_changed` are cheap checks for changes made by
  another process (a window calls them when it gets the focus).

Nothing heavy is imported with this module (the window's first frame may import it): the settings schema,
the store and the assembly are imported when first used.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

# the environment snapshot lives in a module below every module that needs it; it is part of what Services offers
from desktop_agent.core.environment import OTHER_READERS as OTHER_READERS
from desktop_agent.core.environment import VARIABLES as VARIABLES
from desktop_agent.core.environment import AppEnv as AppEnv
from desktop_agent.core.environment import current_env as current_env

if TYPE_CHECKING:
    from desktop_agent.core.assembly import Assembly
    from desktop_agent.core.mcp.manager import McpManager, ServerState
    from desktop_agent.core.messages import Conversation
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.session import ChatSession
    from desktop_agent.core.settings import Settings
    from desktop_agent.core.store import ConversationStore
    from desktop_agent.core.tools.permissions import PermissionEngine
    from desktop_agent.core.tools.registry import ToolRegistry

log = logging.getLogger(__name__)


# ---- layering ---------------------------------------------------------------------------------------


class Layered(NamedTuple):
    """The settings a surface works with. ``effective`` = ``saved`` + environment + flags; only ``saved``
    is ever written back. ``warnings``: what the user must be told (a reset value, an unusable variable);
    ``env_warnings`` those of them about the environment. ``env_host``: the ``OLLAMA_HOST`` URL in use,
    when it replaced the saved host."""

    effective: Settings
    saved: Settings
    warnings: tuple[str, ...] = ()
    env_host: str | None = None
    env_warnings: tuple[str, ...] = ()


class FlagError(ValueError):
    """A command-line value the settings refuse. ``key`` is the dotted setting it was meant for."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


def layer(saved: Settings, environ: Mapping[str, str] | AppEnv | None = None,
          flags: Mapping[str, Any] | None = None, warnings: Iterable[str] = ()) -> Layered:
    """``saved``, then ``OLLAMA_HOST`` from ``environ`` (an :class:`AppEnv` or a mapping; default this
    process's), then ``flags`` (dotted keys, ``None`` values ignored; ``"model"`` is the model of the backend the
    settings end with). A bad ``OLLAMA_HOST`` is a warning; a bad flag raises :class:`FlagError`."""
    from pydantic import ValidationError

    from desktop_agent.core.settings import check_url
    from desktop_agent.core.urls import parse_ollama_host

    env = environ if isinstance(environ, AppEnv) else AppEnv.read(environ)
    notes: list[str] = []
    effective = saved
    env_host: str | None = None
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    if "model" in flags:  # `--model`: the model of the backend chosen (by `--backend` or the file)
        flags[f"{flags.get('backend') or saved.backend}.model"] = flags.pop("model")
    raw = env.ollama_host.strip()
    if raw:
        try:
            env_host = check_url(parse_ollama_host(raw))
            effective = effective.updated({"ollama.host": env_host})
        except (ValueError, ValidationError) as exc:
            env_host = None
            if "ollama.host" not in flags:
                notes.append(f"OLLAMA_HOST is not usable ({_first_message(exc)}); using {saved.ollama.host}")
    if flags:
        try:
            effective = effective.updated(flags)
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(p) for p in first.get("loc", ()))
            raise FlagError(key, _first_message(exc)) from None
    return Layered(effective, saved, (*warnings, *notes), env_host, tuple(notes))


def load_settings(flags: Mapping[str, Any] | None = None, environ: Mapping[str, str] | AppEnv | None = None,
                  path: Path | None = None) -> Layered:
    """The saved settings file, layered with the environment and ``flags`` (see :func:`layer`)."""
    from desktop_agent.core.settings import Settings

    saved, warnings = Settings.load(path)
    return layer(saved, environ, flags, warnings)


def ollama_host_note(raw: str) -> tuple[str | None, str]:
    """The note under Settings' Ollama host field about ``OLLAMA_HOST`` (its value ``raw``; None when it is not
    set) and its kind (``info`` / ``warn``). The variable is read as Ollama reads it (``":11500"`` is
    ``http://127.0.0.1:11500``)."""
    from desktop_agent.core.settings import check_url
    from desktop_agent.core.urls import parse_ollama_host

    raw = raw.strip()
    if not raw:
        return None, "info"
    try:
        url = check_url(parse_ollama_host(raw))
    except ValueError as exc:
        return f"OLLAMA_HOST is set ({raw}) but cannot be used: {exc}. The saved host is used.", "warn"
    shown = url if url == raw else f"{raw}, that is {url}"
    return f"OLLAMA_HOST is set ({shown}): it replaces the saved host each time the app starts.", "info"


def _first_message(exc: Exception) -> str:
    from pydantic import ValidationError

    if isinstance(exc, ValidationError):
        errors = exc.errors()
        text = str(errors[0].get("msg", "invalid value")) if errors else "invalid value"
    else:
        text = str(exc)
    return " ".join(text.replace("Value error, ", "").split())


# ---- the settings file: saves that keep other processes' changes ------------------------------------


def changed_keys(before: Settings, after: Settings) -> dict[str, Any]:
    """The dotted settings (``"ollama.host"``, ``"mcp.servers"``, ``"backend"``) whose values differ from
    ``before`` to ``after``, with their values in ``after``."""
    old, new = before.model_dump(), after.model_dump()
    out: dict[str, Any] = {}
    for key, value in new.items():
        if isinstance(value, dict) and isinstance(old.get(key), dict):
            out.update({f"{key}.{name}": v for name, v in value.items() if old[key].get(name) != v})
        elif old.get(key) != value:
            out[key] = value
    return out


@contextlib.contextmanager
def settings_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on the settings file at ``path`` (a lock file beside it), across processes and threads:
    who holds it reads the file, changes it and writes it back before anyone else may."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a+b") as handle:
        if sys.platform == "win32":  # pragma: no cover - Windows
            import msvcrt

            handle.seek(0)
            while True:  # LK_LOCK gives up after ten seconds (EDEADLOCK); a save waits as long as it takes
                try:
                    msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                    break
                except OSError as exc:
                    if exc.errno != errno.EDEADLOCK:
                        raise
            try:
                yield
            finally:
                handle.seek(0)
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            give_up = time.monotonic() + LOCK_WAIT_S
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:  # held by another save: they take milliseconds — unless one hangs
                    if time.monotonic() >= give_up:
                        raise SettingsBusy(path) from None
                    time.sleep(0.01)
                except OSError as exc:  # a file system without locks (some NFS, SMB, FUSE mounts): save unlocked
                    if exc.errno not in _NO_LOCKS:
                        raise
                    log.warning("the settings file cannot be locked here (%s); saved without a lock", exc)
                    yield
                    return
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


#: how long a save waits for another program's save of the settings file (a window's, on its GUI thread) before
#: it gives up (:class:`SettingsBusy`) — saves take milliseconds; one holding it longer waits for something else
#: (a terminal's ``mcp add`` storing a secret while the keyring asks to be unlocked)
LOCK_WAIT_S = 5.0


class SettingsBusy(OSError):
    """Another program has held the settings file's lock for :data:`LOCK_WAIT_S`: nothing was saved."""

    def __init__(self, path: Path):
        super().__init__(f"another program is changing the settings file {path} (for more than {LOCK_WAIT_S:g} s); "
                         "nothing was saved — try again")
        self.errno = errno.EBUSY


#: what ``flock`` raises on a file system that has no locks
_NO_LOCKS = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EINVAL})


def edit_file(change: Callable[[Settings], Settings], path: Path | None = None) -> tuple[Settings, list[str]]:
    """Apply ``change`` to the settings file AS IT IS NOW — read, changed and written (atomically, by
    :meth:`Settings.save`) under :func:`settings_lock` — and return what was written and the warnings of
    reading it. ``change`` raising writes nothing."""
    from desktop_agent.core import paths

    new, warnings, _stamped = _edit_file(change, path or paths.settings_file())
    return new, warnings


def _edit_file(change: Callable[[Settings], Settings],
               path: Path) -> tuple[Settings, list[str], tuple[int, int, int] | None]:
    """:func:`edit_file`, and the written file's :func:`_stamp` taken under the lock (a save by another process
    right after is not mistaken for this one)."""
    from desktop_agent.core.settings import Settings

    with settings_lock(path):
        # a file there but unreadable now is left as it is: a load gives the defaults, never write them over it
        with contextlib.suppress(FileNotFoundError):
            path.open("rb").close()
        current, warnings = Settings.load(path)
        new = change(current)
        new.save(path)
        return new, warnings, _stamp(path)


def save_changes(changes: Mapping[str, Any], path: Path | None = None) -> Settings:
    """Write the dotted ``changes`` on top of the settings file as it is now (see :func:`edit_file`); returns
    the settings written. Raises pydantic's ``ValidationError`` for a bad value, OSError when it can't write."""
    return edit_file(lambda current: current.updated(changes), path)[0]


def save_edit(before: Settings, after: Settings, path: Path | None = None) -> Settings:
    """Save what changed from ``before`` to ``after`` (:func:`changed_keys`) on top of the file as it is now:
    what another process wrote meanwhile and ``after`` did not change is kept."""
    from desktop_agent.core import paths

    path = path or paths.settings_file()
    return edit_file(edit_of(before, after, path), path)[0]


def edit_of(before: Settings, after: Settings, path: Path) -> Callable[[Settings], Settings]:
    """The change of the file at ``path`` an editor made from ``before`` to ``after``: its changed keys on top of
    the file as it is — or ``after`` whole when there is no file (nothing on disk to keep: an editor opened
    with settings of its own is saved as it shows them). A changed list or mapping is merged item by item
    (:func:`merge_three`): a server removed here and one added by a terminal meanwhile both take effect."""
    changes = changed_keys(before, after)
    old = before.model_dump()

    def change(current: Settings) -> Settings:
        if not path.exists():
            return after
        now = current.model_dump()
        return current.updated({key: merge_three(_at(old, key), value, _at(now, key))
                                for key, value in changes.items()})

    return change


def _at(dump: Mapping[str, Any], key: str) -> Any:
    value: Any = dump
    for part in key.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def _identity(item: Any) -> Any:
    """What makes a list item the same item in two versions of the list: an MCP server by its name, anything
    else by its whole value."""
    if isinstance(item, Mapping) and isinstance(item.get("name"), str):
        return ("name", item["name"])
    return ("value", json.dumps(item, sort_keys=True, default=str))


def merge_three(before: Any, after: Any, current: Any) -> Any:
    """One setting changed by an editor from ``before`` to ``after``, while the file came to hold ``current``:
    the editor's change applied to ``current``. Unchanged elsewhere: ``after`` as it is (its order too). A
    mapping: the keys the editor removed, added or changed, on top of ``current``'s. A list: the items the editor
    removed go, the items it added or changed are put in (an item that is in ``current`` keeps its place), the
    items another process added stay. Anything else: ``after`` (the editor's value wins)."""
    if current == before or current is None:
        return after
    if isinstance(before, Mapping) and isinstance(after, Mapping) and isinstance(current, Mapping):
        merged = dict(current)
        for key in set(before) | set(after):
            if key not in after:
                merged.pop(key, None)
            elif before.get(key) != after[key]:
                merged[key] = (merge_three(before[key], after[key], current[key])
                               if key in before and key in current else after[key])
        return merged
    if isinstance(before, list) and isinstance(after, list) and isinstance(current, list):
        was = {_identity(item): item for item in before}
        now = {_identity(item): item for item in after}
        edited = {key: item for key, item in now.items() if was.get(key) != item}
        removed = was.keys() - now.keys()
        kept = [edited.pop(_identity(item), item) for item in current if _identity(item) not in removed]
        return kept + list(edited.values())
    return after


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What tells a changed file cheaply: its inode (an atomic save replaces it), size and modification time."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _usable_file(path: Path) -> bool:
    """Whether the settings file at ``path`` can be followed as another program left it: a JSON object of a
    schema this version reads (or no file: the defaults). A load would move a damaged file aside and give the
    defaults — right at start-up, not for a window following a file someone is writing."""
    import json

    from desktop_agent.core.settings import SCHEMA_VERSION

    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        return True
    except (OSError, ValueError, RecursionError):
        return False
    version = data.get("version") if isinstance(data, dict) else None
    return isinstance(data, dict) and not (isinstance(version, int) and version > SCHEMA_VERSION)


# ---- the composition root -----------------------------------------------------------------------------


class Services:
    """What a surface opens the app with. ``flags``: dotted settings from the command line (see :func:`layer`);
    ``data_dir``: every folder of the app under it (else ``DESKTOP_AGENT_HOME``, else the user folders);
    ``environ``: the environment (default this process's), read once here. ``tool_dirs``: tool folders added
    for this run (``--tools-dir``).

    ``secrets``, ``store`` and ``assembly`` are hooks for a surface that made its own (the window's tests);
    each is otherwise opened on first use. Thread-safe; :meth:`close` stops the MCP servers and the tool
    host and closes the store."""

    def __init__(self, flags: Mapping[str, Any] | None = None, data_dir: str | os.PathLike[str] | None = None,
                 environ: Mapping[str, str] | None = None, *, tool_dirs: Iterable[str] = (),
                 settings_path: Path | None = None, secrets: SecretStore | None = None,
                 store: ConversationStore | None = None, assembly: Assembly | None = None):
        self.env = AppEnv.read(environ)
        from desktop_agent.core import paths

        # the data folder: ``data_dir``, else one this process already chose (``--data-dir``, parsed before the
        # window opens its services), else ``DESKTOP_AGENT_HOME``
        home = data_dir or (None if paths.home_override() is not None else self.env.home)
        if home:
            paths.set_home(home)
        self.flags = {k: v for k, v in (flags or {}).items() if v is not None}
        self.tool_dirs = tuple(tool_dirs)
        self._settings_path = settings_path
        self._secrets = secrets if secrets is not None else (assembly.secrets if assembly is not None else None)
        self._store = store
        self._assembly = assembly
        self._permissions: PermissionEngine | None = assembly.permissions if assembly is not None else None
        self._rules_attached = False
        #: what keeping the permission rules in the store met (one line each for the user)
        self.rule_warnings: list[str] = []
        self._layered: Layered | None = None
        self._file_warnings: tuple[str, ...] = ()
        self._settings_stamp: tuple[int, int, int] | None = None
        self._store_version: int | None = None
        self._lock = threading.RLock()

    # ---- settings -----------------------------------------------------------------------------------

    @property
    def settings_path(self) -> Path:
        from desktop_agent.core import paths

        if self._settings_path is not None:
            return self._settings_path
        try:
            return paths.settings_file()
        except OSError:  # the folder cannot be created (read-only): read as absent (the defaults); a save says why
            return paths.planned_dir("config") / "settings.json"

    @property
    def layered(self) -> Layered:
        """The settings file layered with the environment and the flags (read the first time; raises
        :class:`FlagError` for a bad flag)."""
        with self._lock:
            if self._layered is None:
                self._read_settings()
            assert self._layered is not None
            return self._layered

    def _read_settings(self) -> Layered:
        from desktop_agent.core.settings import Settings

        path = self.settings_path
        stamp = _stamp(path)
        saved, warnings = Settings.load(path)
        return self._use(saved, warnings, stamp)

    def _use(self, saved: Settings, warnings: Iterable[str], stamp: tuple[int, int, int] | None) -> Layered:
        layered = layer(saved, self.env, self.flags, warnings)
        self._layered, self._file_warnings, self._settings_stamp = layered, tuple(warnings), stamp
        return layered

    @property
    def effective(self) -> Settings:
        """The settings in use: saved + environment + flags."""
        return self.layered.effective

    @property
    def saved(self) -> Settings:
        """The settings as in the file (what a settings editor starts from)."""
        return self.layered.saved

    @property
    def warnings(self) -> tuple[str, ...]:
        """Everything the user must be told about the settings (the file's and the environment's)."""
        return self.layered.warnings

    @property
    def file_warnings(self) -> tuple[str, ...]:
        """What reading the settings file met (a value reset, a damaged file moved aside)."""
        self.layered  # noqa: B018 — reads the file the first time
        return self._file_warnings

    @property
    def env_host(self) -> str | None:
        """The ``OLLAMA_HOST`` URL in use instead of the saved host, or None."""
        return self.layered.env_host

    def ollama_host_note(self) -> tuple[str | None, str]:
        """The note Settings → Ollama shows about ``OLLAMA_HOST`` and its kind (see :func:`ollama_host_note`)."""
        return ollama_host_note(self.env.ollama_host)

    def layer_saved(self, saved: Settings) -> Layered:
        """``saved`` (settings an editor just saved, or a window was given) layered with this run's environment
        and flags, as the file's are."""
        return layer(saved, self.env, self.flags)

    def update_settings(self, changes: Mapping[str, Any]) -> Layered:
        """Save the dotted ``changes`` on top of the settings file as it is now (another process's changes
        stay); returns the settings layered again. Raises ValidationError for a bad value, OSError (also
        :class:`~desktop_agent.core.settings.NewerSettingsFile`) when the file can't be written."""
        return self.edit_settings(lambda current: current.updated(changes))

    def save_settings(self, before: Settings, after: Settings) -> Layered:
        """Save what an editor changed from ``before`` to ``after`` (:func:`changed_keys`) — nothing else: a
        setting another process changed meanwhile keeps its new value unless this editor changed it too."""
        return self.edit_settings(edit_of(before, after, self.settings_path))

    def edit_settings(self, change: Callable[[Settings], Settings]) -> Layered:
        """Apply ``change`` to the settings file as it is now, under its lock (an MCP server added to the list
        as the file holds it); returns the settings layered again. ``change`` raising writes nothing."""
        with self._lock:
            saved, warnings, stamp = _edit_file(change, self.settings_path)
            return self._use(saved, warnings, stamp)

    def settings_changed(self) -> Layered | None:
        """The settings layered again when the file changed since it was last read or written here (another
        process saved it), else None. One ``stat``: cheap enough for every focus-in."""
        with self._lock:
            if self._layered is None:
                self._read_settings()
                return None
            stamp = _stamp(self.settings_path)
            if stamp == self._settings_stamp:
                return None
            if not _usable_file(self.settings_path):  # half written, or by a newer version: keep what is in use
                log.warning("the settings file %s was changed by another program and cannot be used as it is; "
                            "the settings in use stay", self.settings_path)
                self._settings_stamp = stamp
                return None
            return self._read_settings()

    # ---- secrets, store, permissions ----------------------------------------------------------------

    @property
    def secrets(self) -> SecretStore:
        """The API keys and MCP secrets (keyring first, then ``OPENAI_API_KEY`` from the snapshot)."""
        with self._lock:
            if self._secrets is None:
                from desktop_agent.core.secrets import SecretStore

                self._secrets = SecretStore(environ=self.env.secret_environ())
            return self._secrets

    @property
    def store(self) -> ConversationStore:
        """The chat store, opened the first time (its ``warnings`` say what opening met; raises
        :class:`~desktop_agent.core.errors.StoreError` when it can't be opened). The permission rules are kept
        in it from then on."""
        with self._lock:
            if self._store is None:
                from desktop_agent.core.store import ConversationStore

                self._store = ConversationStore()
                self._store_version = self._data_version(self._store)
            self._attach_rules()
            return self._store

    @property
    def store_open(self) -> bool:
        return self._store is not None

    @property
    def permissions(self) -> PermissionEngine:
        """The one permission engine deciding every tool call; its user rules are the store's once it is open."""
        with self._lock:
            if self._permissions is None:
                from desktop_agent.core.assembly import permission_engine

                self._permissions = permission_engine()
            self._attach_rules()
            return self._permissions

    def _attach_rules(self) -> None:
        if self._rules_attached or self._store is None or self._permissions is None:
            return
        from desktop_agent.core.assembly import attach_rules

        self._rules_attached = True
        try:
            attach_rules(self._permissions, self._store)
        except Exception as exc:  # an old or damaged rules table costs remembering approvals, not the chats
            log.warning("could not load the tool permission rules", exc_info=True)
            self.rule_warnings.append(
                f"Tool permission rules could not be loaded; approvals will not be remembered ({exc}).")

    def store_changed(self) -> bool:
        """Whether another process changed the chat store since the last call (a ``history import`` in a
        terminal): SQLite's ``PRAGMA data_version``, which this connection's own writes do not change. False
        while the store is not open."""
        with self._lock:
            if self._store is None:
                return False
            version = self._data_version(self._store)
            changed = version != self._store_version
            self._store_version = version
            return changed

    @staticmethod
    def _data_version(store: ConversationStore) -> int:
        return int(store.conn.execute("PRAGMA data_version").fetchone()[0])

    # ---- assembly, tools, MCP, sessions -------------------------------------------------------------

    @property
    def assembly(self) -> Assembly:
        """Builds backends, the tool registry and agents, caching them while what built them is unchanged."""
        with self._lock:
            if self._assembly is None:
                from desktop_agent.core.assembly import Assembly

                self._assembly = Assembly(secrets=self.secrets, extra_tool_dirs=self.tool_dirs,
                                          permissions=self.permissions, env=self.env)
            return self._assembly

    def registry(self, settings: Settings | None = None) -> ToolRegistry | None:
        """The tool registry for ``settings`` (default the effective ones; None when tools are off), with the
        tools of the MCP servers ready now (starting them, in the background, the first time)."""
        return self.assembly.registry(settings or self.effective)

    def tool_problems(self) -> list[str]:
        """The problems met loading tool files not yet told (one line each); told once."""
        problems = self.assembly.pending_problems
        out, problems[:] = list(problems), []
        return out

    def mcp(self, settings: Settings | None = None) -> McpManager | None:
        """The MCP servers of ``settings`` (default the effective ones), starting in the background; started again
        when their settings changed. None when there are none."""
        return self.assembly.mcp(settings or self.effective)

    def wait_for_mcp(self, settings: Settings | None = None) -> list[ServerState]:
        """Start the MCP servers (see :meth:`mcp`) and wait for each (at most its start timeout); their states."""
        manager = self.mcp(settings)
        return list(manager.wait_ready()) if manager is not None else []

    def new_session(self, settings: Settings | None = None, conversation: Conversation | None = None) -> ChatSession:
        """A chat session for ``settings`` (default the effective ones): a new chat, or ``conversation``, kept in
        the store. ``session.key_source`` says where the API keys came from (``"environment"``, ``"system
        keyring"``, ``"this session only"``; None for Ollama or no key)."""
        from desktop_agent.core.assembly import api_keys
        from desktop_agent.core.messages import Conversation
        from desktop_agent.core.session import ChatSession

        settings = settings or self.effective
        if conversation is None:
            conversation = Conversation(backend=settings.backend, model=settings.model)
        session = ChatSession(conversation, self.store, self.assembly.agent(settings))
        session.key_source = api_keys(settings, self.secrets).source  # type: ignore[attr-defined]
        return session

    def open_session(self, chat_id: str, settings: Settings | None = None) -> ChatSession:
        """A chat session continuing the saved chat ``chat_id`` (any unique prefix of its id)."""
        store = self.store
        return self.new_session(settings, store.load(store.resolve(chat_id)))

    def close(self) -> None:
        """Stop the MCP servers and the tool host, close the backend and the store (idempotent)."""
        with self._lock:
            assembly, store, self._store = self._assembly, self._store, None
            self._rules_attached = False
        if assembly is not None:
            assembly.close()
        if store is not None:
            store.close()

    def __enter__(self) -> Services:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
