"""Keyring backends for tests, and the fixture that restores keyring's global state.

Shared by the secrets unit tests, the settings-dialog GUI tests and the adversarial tests. The real
Secret Service is tested in tests/e2e/test_keyring_real.py.
"""

from __future__ import annotations

import keyring
import keyring.core
import pytest
from keyring.backend import KeyringBackend
from keyring.compat import properties
from keyring.errors import PasswordDeleteError

from desktop_agent.core import secrets


class DictKeyring(KeyringBackend):
    """A secure-looking keyring (priority 5) that keeps secrets in a dict, for the logic."""

    priority = 5  # a plain attribute is enough for a class that is never auto-detected

    def __init__(self):
        super().__init__()
        self.data: dict[tuple[str, str], str] = {}
        self.calls: list[str] = []

    def get_password(self, service, username):
        self.calls.append("get")
        return self.data.get((service, username))

    def set_password(self, service, username, password):
        self.calls.append("set")
        self.data[(service, username)] = password

    def delete_password(self, service, username):
        self.calls.append("delete")
        if (service, username) not in self.data:
            raise PasswordDeleteError("No such password!")
        del self.data[(service, username)]


class RaisingKeyring(DictKeyring):
    """A secure backend whose every operation raises ``exc`` (a locked keyring, a dismissed prompt)."""

    def __init__(self, exc: BaseException):
        super().__init__()
        self.exc = exc

    def get_password(self, service, username):
        if self.exc is None:
            return super().get_password(service, username)
        self.calls.append("get")
        raise self.exc

    def set_password(self, service, username, password):
        if self.exc is None:
            return super().set_password(service, username, password)
        self.calls.append("set")
        raise self.exc


class PlaintextLikeKeyring(DictKeyring):
    """Looks like keyrings.alt's file backend: must never receive a key."""

    @properties.classproperty
    def priority(cls):  # noqa: N805 - a keyring classproperty receives the class
        return 0.5

    def set_password(self, service, username, password):  # pragma: no cover - must not be reached
        raise AssertionError("a key was handed to a plaintext backend")


PlaintextLikeKeyring.__module__ = "keyrings.alt.file"


def _not_detectable(*classes):
    """keyring registers every backend subclass for auto-detection: keep ours out of it, so a later
    test (or the e2e keyring test in the same run) never picks a dict as "the system keyring"."""
    for cls in classes:
        KeyringBackend._classes.discard(cls)


_not_detectable(DictKeyring, RaisingKeyring, PlaintextLikeKeyring)


@pytest.fixture
def clean_keyring_state():
    """Restore keyring's global backend and forget session keys around a test."""
    saved = keyring.core._keyring_backend
    secrets.forget_session_keys()
    yield
    secrets.forget_session_keys()
    keyring.core._keyring_backend = saved


class LockedKeyring(DictKeyring):
    """A Secret Service whose collection stays locked (the unlock prompt dismissed): every read and write raises
    ``KeyringLocked``, as keyring's SecretService backend does. Selectable in a subprocess with
    ``PYTHON_KEYRING_BACKEND=tests.helpers.keyrings.LockedKeyring``."""

    def get_password(self, service, username):
        from keyring.errors import KeyringLocked

        self.calls.append("get")
        raise KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service, username, password):
        from keyring.errors import KeyringLocked

        self.calls.append("set")
        raise KeyringLocked("Failed to unlock the collection!")


_not_detectable(LockedKeyring)


class FileKeyring(DictKeyring):
    """A secure-looking keyring whose secrets are in the JSON file ``$TEST_KEYRING_FILE``, so that a command run as a
    subprocess (``PYTHON_KEYRING_BACKEND=tests.helpers.keyrings.FileKeyring``) keeps them and the test can read them."""

    def _load(self) -> dict[str, str]:
        import json
        import os
        from pathlib import Path

        path = Path(os.environ["TEST_KEYRING_FILE"])
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}

    def _save(self, data: dict[str, str]) -> None:
        import json
        import os
        from pathlib import Path

        Path(os.environ["TEST_KEYRING_FILE"]).write_text(json.dumps(data), encoding="utf-8")

    def get_password(self, service, username):
        return self._load().get(f"{service}\0{username}")

    def set_password(self, service, username, password):
        data = self._load()
        data[f"{service}\0{username}"] = password
        self._save(data)

    def delete_password(self, service, username):
        data = self._load()
        if data.pop(f"{service}\0{username}", None) is None:
            raise PasswordDeleteError("No such password!")
        self._save(data)


_not_detectable(FileKeyring)
