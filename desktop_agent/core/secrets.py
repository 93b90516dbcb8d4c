"""API keys: the OS keyring first, then the ``OPENAI_API_KEY`` environment variable, then this session only.

Where keys live
---------------
- **System keyring** (``keyring`` library, service ``desktop-agent``): every OpenAI-compatible provider
  gets ONE keyring entry whose username is ``api-keys:<base URL>`` (the base URL normalised: no trailing
  slash, lower-case scheme and host) and whose secret is a JSON list of the keys, in order, e.g.
  ``["sk-a…", "sk-b…"]``. One entry per provider means one unlock prompt and an atomic replace when the
  list changes. In a keyring browser (Seahorse) the entry is labelled
  ``Password for 'api-keys:https://api.openai.com/v1' on 'desktop-agent'``.
- **Environment**: ``OPENAI_API_KEY`` (one key), used when the keyring holds nothing for the provider
  or cannot be used. It is never copied anywhere.
- **This session only**: when the keyring cannot be used, keys the user enters are kept in this
  process's memory (shared by every :class:`SecretStore` of the process) and forgotten at exit.

A key is never written in plain text: not to the settings file, the chat store, logs or error messages.
Backends that would store it in a readable file (anything from ``keyrings.alt``, or any backend whose
``priority`` is below 1 — the ``fail`` and ``null`` backends, plaintext files) are refused and count as
"no keyring". ``keyring`` itself is imported lazily, on the first operation (≈ 0.3 s), never at start-up.

Errors (a headless machine often has no keyring backend at all): ``NoKeyringError``, ``KeyringLocked``, a
dismissed unlock prompt (``InitError`` / other ``KeyringError``) and D-Bus failures never propagate: they
set :attr:`SecretStore.problem` to one sentence a user can act on and the store falls back down the
ladder. After a failure the keyring is not asked again (no repeated unlock prompts) until
:meth:`SecretStore.retry_keyring`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from desktop_agent.core import state
from desktop_agent.core.backends.keypool import mask_key  # one masking rule for the whole app

__all__ = ["SecretStore", "api_key_problem", "forget_session_keys", "mask_key", "normalize_base_url"]

log = logging.getLogger(__name__)

SERVICE = "desktop-agent"
ENV_VAR = "OPENAI_API_KEY"

#: The three answers of :meth:`SecretStore.where`.
SYSTEM_KEYRING = "system keyring"
ENVIRONMENT = "environment"
SESSION_ONLY = "this session only"

NO_KEYRING_TEXT = "No secure keyring is available on this system"
ALTERNATIVES_TEXT = (
    f"Keys you add are kept for this session only. To keep a key across restarts, set the {ENV_VAR} "
    "environment variable, or install and unlock a Secret Service keyring (GNOME Keyring, KWallet)."
)
_DEFAULT_BASE_URL = "https://api.openai.com/v1"



def normalize_base_url(base_url: str | None) -> str:
    """The provider id used in the keyring username: stripped, no trailing ``/``, lower-case scheme
    and host (``HTTPS://API.OpenAI.com/v1/`` → ``https://api.openai.com/v1``)."""
    url = (base_url or _DEFAULT_BASE_URL).strip().rstrip("/")
    try:
        parts = urlsplit(url)
        return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"), parts.query, ""))
    except ValueError:
        return url


def api_key_problem(key: str) -> str | None:
    """Why ``key`` can't be an API key, or None. A key travels in the HTTP header
    ``Authorization: Bearer <key>``, which carries printable ASCII only: a space, line break, control
    or non-ASCII character (a pasted "sk-a⏎sk-b", a typographic dash) would fail every request.
    The text never repeats the key."""
    key = (key or "").strip()
    if not key:
        return "The API key is empty."
    for ch in key:
        if ch.isspace():
            return "The API key contains a space or line break; paste one key at a time."
        if not (0x21 <= ord(ch) <= 0x7E):
            name = f"U+{ord(ch):04X}"
            return f"The API key contains a character ({name}) that API keys never have; copy it again."
    return None


def forget_session_keys() -> None:
    """Drop every key and secret kept for this session only (tests; "sign out")."""
    with state.SESSION_LOCK:
        state.SESSION_KEYS.clear()
        state.SESSION_SECRETS.clear()


def _current_base_url() -> str:
    """The OpenAI-compatible base URL of the saved settings, read without side effects (a bad
    settings file is left alone here; :meth:`Settings.load` deals with it)."""
    try:
        from desktop_agent.core import paths

        data = json.loads(paths.settings_file().read_text(encoding="utf-8"))
        value = None
        if isinstance(data, dict):
            group = data.get("openai")
            value = group.get("base_url") if isinstance(group, dict) else data.get("openai_base_url")
        if isinstance(value, str) and value.strip():
            return value
    except (OSError, ValueError):
        pass
    return _DEFAULT_BASE_URL


def _is_refused(backend: Any) -> str | None:
    """Why ``backend`` must not hold keys, or None when it is a secure keyring."""
    cls = type(backend)
    module = cls.__module__ or ""
    if module.startswith("keyrings.alt") or module.startswith("keyrings_alt"):
        return f"the keyring backend {cls.__name__} from keyrings.alt stores keys in a file, not securely"
    if module.startswith("keyring.backends.fail") or module.startswith("keyring.backends.null"):
        return "no keyring backend is available"
    try:
        priority = float(cls.priority)
    except Exception as exc:  # noqa: BLE001 - priority raises RuntimeError when the backend is not viable
        return f"the keyring backend is not usable ({_first_line(exc)})"
    if priority < 1:
        return f"the keyring backend {cls.__name__} is not a recommended, secure one"
    return None


def _is_locked(exc: BaseException) -> bool:
    """True when ``exc`` says the keyring is locked (``KeyringLocked``, or a dismissed unlock prompt)."""
    try:
        from keyring import errors as kerr
    except Exception:  # noqa: BLE001 - keyring not importable: not a lock
        return False
    if isinstance(exc, kerr.KeyringLocked):
        return True
    text = _first_line(exc).lower()
    return not isinstance(exc, kerr.NoKeyringError) and ("locked" in text or "dismiss" in text)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class SecretStore:
    """API keys of OpenAI-compatible providers, with a fallback ladder (see the module docstring).

    ``base_url``: the provider whose keys the methods handle when they are called without one;
    None = the ``openai_base_url`` of the saved settings. ``keyring_backend``: use this
    ``keyring.backend.KeyringBackend`` instead of the one ``keyring`` detects (tests). ``environ``:
    the environment to read ``OPENAI_API_KEY`` from (default: this process's, read at each use through
    :func:`desktop_agent.core.services.current_env`; :class:`~desktop_agent.core.services.Services` hands its
    snapshot down).

    Thread-safe; every method may block while the keyring shows an unlock prompt, so the window calls
    them off the GUI thread. No method raises for a keyring failure.
    """

    def __init__(
        self,
        base_url: str | None = None,
        *,
        keyring_backend: Any = None,
        environ: Any = None,
    ):
        self._base_url = base_url
        self._given_backend = keyring_backend
        self._environ = environ
        self._lock = threading.RLock()
        self._backend: Any = None
        self._checked = False
        #: why the system keyring cannot be used (one sentence for the user), or None
        self.problem: str | None = None
        #: the keyring is there but locked (its unlock prompt was dismissed or failed): keys saved in it
        #: can't be read until the user unlocks it — not the same as having no key
        self.locked = False

    # ---- the keyring ------------------------------------------------------------------------------

    @property
    def keyring_read(self) -> bool:
        """Whether the system keyring has been looked at (imported and its backend chosen) by this store."""
        return self._checked

    def _keyring(self) -> Any:
        """The usable keyring backend, or None (then :attr:`problem` says why). Imports keyring lazily."""
        with self._lock:
            if self._checked:
                return self._backend
            self._checked = True
            try:
                backend = self._given_backend
                if backend is None:
                    import keyring  # lazy: ≈ 0.3 s with its backend detection

                    backend = keyring.get_keyring()
            except Exception as exc:  # noqa: BLE001 - a broken keyring config or backend import must not crash us
                self._set_problem(f"{NO_KEYRING_TEXT} (the keyring could not be loaded: {_first_line(exc)}).")
                return None
            try:
                backend = self._pick_secure(backend)
            except Exception as exc:  # noqa: BLE001 - a keyring that fails in any way is reported, not raised
                self._fail(exc)
                return None
            self._backend = backend
            return backend

    def _pick_secure(self, backend: Any) -> Any:
        """``backend`` if secure; from a chainer, its best secure member; else record the problem."""
        from keyring.backends.chainer import ChainerBackend

        if isinstance(backend, ChainerBackend):
            members = [b for b in ChainerBackend.backends if _is_refused(b) is None]
            if members:
                return members[0]  # already sorted, highest priority first
            self._set_problem(f"{NO_KEYRING_TEXT}.")
            return None
        why = _is_refused(backend)
        if why is None:
            return backend
        if "keyrings.alt" in why or "not a recommended" in why:
            self._set_problem(f"{NO_KEYRING_TEXT} ({why}; it was not used).")
        else:
            self._set_problem(f"{NO_KEYRING_TEXT}.")
        return None

    def _set_problem(self, text: str) -> None:
        self.problem = text
        log.info("API keys: system keyring not used: %s", text)

    def _fail(self, exc: BaseException) -> None:
        """Turn a keyring exception into :attr:`problem` and stop using the keyring."""
        self._backend = None
        self._checked = True
        self.locked = _is_locked(exc)
        self._set_problem(self._explain(exc))

    @staticmethod
    def _explain(exc: BaseException) -> str:
        try:
            from keyring import errors as kerr
        except Exception:  # noqa: BLE001 - keyring not even importable
            return f"{NO_KEYRING_TEXT} (the keyring library could not be loaded: {_first_line(exc)})."
        if isinstance(exc, kerr.NoKeyringError):
            return f"{NO_KEYRING_TEXT}."
        if isinstance(exc, kerr.KeyringLocked):
            return (
                "The system keyring is locked: the unlock prompt was dismissed or the password was "
                "not accepted. Unlock it (e.g. in Passwords and Keys) and try again."
            )
        if isinstance(exc, kerr.InitError):
            return (
                f"The system keyring could not be opened ({_first_line(exc)}). The unlock prompt may "
                "have been dismissed; unlock the keyring and try again."
            )
        if isinstance(exc, kerr.PasswordSetError):
            return f"The system keyring refused to store the key ({_first_line(exc)})."
        if isinstance(exc, kerr.KeyringError):
            return f"The system keyring reported an error: {_first_line(exc)}."
        if type(exc) is RuntimeError and "backend" in str(exc).lower():
            # keyring < 23 raised a plain RuntimeError("No recommended backend was available...")
            return f"{NO_KEYRING_TEXT}."
        # D-Bus / secretstorage / jeepney errors, a prompt that was dismissed, etc.
        text = _first_line(exc)
        if "dismiss" in text.lower() or "prompt" in text.lower():
            return "The keyring unlock prompt was dismissed, so the system keyring cannot be used now."
        return f"The system keyring could not be used ({type(exc).__name__}: {text})."

    def retry_keyring(self) -> bool:
        """Forget a past failure and ask the keyring again; True when it is usable now."""
        with self._lock:
            self._checked = False
            self._backend = None
            self.problem = None
            self.locked = False
        return self._keyring() is not None

    @property
    def backend_name(self) -> str | None:
        """The keyring backend in use, for display (``SecretService Keyring``), or None."""
        backend = self._keyring()
        if backend is None:
            return None
        try:
            return str(type(backend).name)
        except Exception:  # noqa: BLE001 - a backend without a usable name is named by its class
            return type(backend).__name__

    # ---- keys ---------------------------------------------------------------------------------

    def _provider(self, base_url: str | None) -> str:
        return normalize_base_url(base_url or self._base_url or _current_base_url())

    @staticmethod
    def _username(provider: str) -> str:
        return f"api-keys:{provider}"

    def _read_keyring(self, provider: str) -> list[str] | None:
        """Keys in the keyring for ``provider`` (None: no entry, or the keyring is unusable)."""
        backend = self._keyring()
        if backend is None:
            return None
        try:
            raw = backend.get_password(SERVICE, self._username(provider))
        except Exception as exc:  # noqa: BLE001 - a keyring that fails in any way is reported, not raised
            self._fail(exc)
            return None
        if raw is None:
            return None
        return _decode(raw)

    def _env_key(self) -> str | None:
        if self._environ is None:
            from desktop_agent.core.environment import current_env

            value = current_env().openai_api_key.strip()
        else:
            value = (self._environ.get(ENV_VAR) or "").strip()
        return value or None

    def _session(self, provider: str) -> list[str] | None:
        with state.SESSION_LOCK:
            keys = state.SESSION_KEYS.get(provider)
            return list(keys) if keys is not None else None

    def _lookup(self, provider: str) -> tuple[list[str], str]:
        """The keys for ``provider`` and where they live (the ladder)."""
        with self._lock:
            stored = self._read_keyring(provider)
            if stored:
                return stored, SYSTEM_KEYRING
            session = self._session(provider)
            if session:
                return session, SESSION_ONLY
            env = self._env_key()
            if env:
                return [env], ENVIRONMENT
            return [], (SYSTEM_KEYRING if self._keyring() is not None else SESSION_ONLY)

    def stored_api_keys(self, base_url: str | None = None) -> tuple[list[str], str]:
        """The keys the user saved for a provider, WITHOUT the environment variable, and where they
        are (``"system keyring"`` or ``"this session only"``). The settings dialog edits this list."""
        provider = self._provider(base_url)
        with self._lock:
            stored = self._read_keyring(provider)
            if stored:
                return stored, SYSTEM_KEYRING
            session = self._session(provider)
            if session:
                return session, SESSION_ONLY
            return [], (SYSTEM_KEYRING if self._keyring() is not None else SESSION_ONLY)

    def environment_key(self) -> str | None:
        """The ``OPENAI_API_KEY`` value, or None. Show it only through :func:`mask_key`."""
        return self._env_key()

    def get_api_keys(self, base_url: str | None = None) -> list[str]:
        """The keys for a provider (``base_url``; default: see the class doc), in order of use:
        keyring entry → keys kept for this session → ``[OPENAI_API_KEY]`` → ``[]``. Never raises."""
        return self._lookup(self._provider(base_url))[0]

    def where(self, base_url: str | None = None) -> str:
        """Where the provider's keys live now: ``"system keyring"``, ``"environment"`` or
        ``"this session only"``. With no key at all: where a new key would be kept."""
        return self._lookup(self._provider(base_url))[1]

    def set_api_keys(self, keys: list[str], base_url: str | None = None) -> str:
        """Replace the provider's keys; returns where they live now (see :meth:`where`).

        Blank and duplicate keys are dropped; ``[]`` deletes the entry. When the keyring cannot take
        them, keys equal to ``OPENAI_API_KEY`` are left to the environment and the others are kept for
        this session only — never written to a file. Never raises.
        """
        provider = self._provider(base_url)
        clean: list[str] = []
        for key in keys:
            key = (key or "").strip()
            if key and key not in clean:
                clean.append(key)
        with self._lock:
            backend = self._keyring()
            if backend is not None:
                try:
                    if clean:
                        backend.set_password(SERVICE, self._username(provider), json.dumps(clean))
                    else:
                        self._delete_entry(backend, provider)
                    # saved: a session copy from an earlier failure is no longer needed
                    with state.SESSION_LOCK:
                        state.SESSION_KEYS.pop(provider, None)
                    keys_now, where = self._lookup(provider)
                    if clean and keys_now != clean:
                        # the keyring took the keys but can't give them back (get fails, a locked
                        # collection): keep them for this session so they are not lost now
                        with state.SESSION_LOCK:
                            state.SESSION_KEYS[provider] = clean
                        return SESSION_ONLY
                    return where
                except Exception as exc:  # noqa: BLE001 - a keyring that fails in any way is reported, not raised
                    self._fail(exc)
            # no usable keyring: environment or memory, never a file
            env = self._env_key()
            with state.SESSION_LOCK:
                if clean and clean != [env]:
                    state.SESSION_KEYS[provider] = clean
                    where = SESSION_ONLY
                else:
                    state.SESSION_KEYS.pop(provider, None)
                    where = ENVIRONMENT if env else SESSION_ONLY
            log.info("API keys for %s: %d key(s), kept in %s", provider, len(clean), where)
            return where

    def delete_api_keys(self, base_url: str | None = None) -> str:
        """Delete the provider's keys (keyring entry and session copy); returns :meth:`where`."""
        return self.set_api_keys([], base_url)

    def _delete_entry(self, backend: Any, provider: str) -> None:
        from keyring.errors import PasswordDeleteError

        with contextlib.suppress(PasswordDeleteError):  # nothing stored: nothing to delete
            backend.delete_password(SERVICE, self._username(provider))

    # ---- other secrets (an MCP server's tokens) ----------------------------------------------------

    def get_secret(self, name: str) -> str | None:
        """The secret stored under ``name`` (e.g. ``"mcp:github:env:GITHUB_TOKEN"``), or None. Never raises."""
        with state.SESSION_LOCK:
            if name in state.SESSION_SECRETS:
                return state.SESSION_SECRETS[name]
        backend = self._keyring()
        if backend is None:
            return None
        try:
            return backend.get_password(SERVICE, f"secret:{name}")
        except Exception as exc:  # noqa: BLE001 - a keyring that fails in any way is reported, not raised
            self._fail(exc)
            return None

    def set_secret(self, name: str, value: str | None) -> str:
        """Store ``value`` under ``name`` (None or "" deletes it); returns where it lives: the system keyring,
        or this session only when the keyring cannot take it — never a file. Never raises."""
        with self._lock:
            backend = self._keyring()
            if backend is not None:
                try:
                    if value:
                        backend.set_password(SERVICE, f"secret:{name}", value)
                    else:
                        from keyring.errors import PasswordDeleteError

                        with contextlib.suppress(PasswordDeleteError):
                            backend.delete_password(SERVICE, f"secret:{name}")
                    with state.SESSION_LOCK:
                        state.SESSION_SECRETS.pop(name, None)
                    return SYSTEM_KEYRING
                except Exception as exc:  # noqa: BLE001 - a keyring that fails in any way is reported, not raised
                    self._fail(exc)
            with state.SESSION_LOCK:
                if value:
                    state.SESSION_SECRETS[name] = value
                else:
                    state.SESSION_SECRETS.pop(name, None)
            return SESSION_ONLY

    def describe(self, base_url: str | None = None) -> str:
        """One sentence for the settings dialog: where the keys live and, when the keyring cannot be
        used, why and what to do instead."""
        where = self.where(base_url)
        if where == SYSTEM_KEYRING:
            name = self.backend_name
            return f"Keys are stored in the system keyring{f' ({name})' if name else ''}."
        problem = self.problem or f"{NO_KEYRING_TEXT}."
        if where == ENVIRONMENT:
            return (
                f"{problem} The key comes from the {ENV_VAR} environment variable; keys you add are kept "
                "for this session only."
                if self._keyring() is None
                else f"The key comes from the {ENV_VAR} environment variable. Keys you add are stored in "
                "the system keyring."
            )
        if self.problem is None and self._keyring() is not None:
            return (
                "Keys are kept for this session only (the keyring could not take them earlier); "
                "save again to store them in the system keyring."
            )
        return f"{problem} {ALTERNATIVES_TEXT}"


def _decode(raw: str) -> list[str]:
    """A keyring secret → keys. Accepts our JSON list and, leniently, one bare key."""
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [k.strip() for k in value if isinstance(k, str) and k.strip()]
