"""SecretStore: the keyring → OPENAI_API_KEY → this-session-only ladder, without D-Bus.

The happy path uses a small in-test keyring backend (a real ``keyring.backend.KeyringBackend``
subclass keeping secrets in a dict); the failures use keyring's own ``fail`` backend and backends
raising keyring's own exceptions. The real Secret Service is tested in tests/e2e/test_keyring_real.py.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import keyring
import keyring.core
import pytest
from keyring.errors import InitError, KeyringLocked, NoKeyringError

from desktop_agent.core import secrets
from desktop_agent.core.secrets import (
    ENVIRONMENT,
    NO_KEYRING_TEXT,
    SERVICE,
    SESSION_ONLY,
    SYSTEM_KEYRING,
    SecretStore,
    mask_key,
    normalize_base_url,
)
from desktop_agent.core.settings import Settings
from tests.helpers.keyrings import DictKeyring, PlaintextLikeKeyring, RaisingKeyring, _not_detectable

KEY = "sk-test-9f8e7d6c5b4a39281706"
KEY2 = "sk-other-1122334455667788aa"
BASE = "http://127.0.0.1:9/v1"


pytestmark = pytest.mark.usefixtures("clean_keyring_state")


@pytest.fixture
def fail_backend(monkeypatch):
    """keyring's own `fail` backend, selected the way users and CI select it (environment variable)."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    keyring.core.init_backend()
    assert type(keyring.get_keyring()).__module__ == "keyring.backends.fail"


def _files_containing(roots: list[Path], needle: str) -> list[Path]:
    """Every file under ``roots`` holding ``needle`` as text, as base64, or as UTF-16."""
    forms = [needle.encode(), base64.b64encode(needle.encode()), needle.encode("utf-16-le")]
    hits = []
    for root in roots:
        if not root.exists():
            continue
        for path in root.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                if any(f in data for f in forms):
                    hits.append(path)
    return hits


# ---- no keyring (shared case 34) -----------------------------------------------------------------


def test_no_keyring_backend_falls_back_to_session_only(fail_backend, tmp_path, _user_dirs):
    """shared case 34-keyring-no-backend-headless.json: NoKeyringError from get/set is no crash;
    the key is kept for this session only, the problem is explained, and nothing reaches the disk."""
    store = SecretStore(BASE)
    assert store.get_api_keys() == []
    assert store.where() == SESSION_ONLY
    assert store.problem == f"{NO_KEYRING_TEXT}."

    assert store.set_api_keys([KEY]) == SESSION_ONLY
    assert store.get_api_keys() == [KEY]
    # another store in the same process (the window after the dialog) sees the session key
    assert SecretStore(BASE).get_api_keys() == [KEY]
    text = store.describe()
    assert text.startswith(NO_KEYRING_TEXT)
    assert "this session only" in text and "OPENAI_API_KEY" in text
    assert KEY not in text

    Settings(openai_base_url=BASE).save()
    assert _files_containing([tmp_path], KEY) == []


def test_no_keyring_key_forgotten_with_the_session(fail_backend):
    """shared case 34-keyring-no-backend-headless.json: session-only keys are memory only."""
    SecretStore(BASE).set_api_keys([KEY])
    secrets.forget_session_keys()  # what process exit amounts to
    assert SecretStore(BASE).get_api_keys() == []


def test_no_keyring_environment_variable_is_used(fail_backend, monkeypatch):
    """shared case 34-keyring-no-backend-headless.json: the OPENAI_API_KEY alternative."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    store = SecretStore(BASE)
    assert store.get_api_keys() == [KEY]
    assert store.where() == ENVIRONMENT
    assert store.environment_key() == KEY
    assert store.stored_api_keys() == ([], SESSION_ONLY)
    assert "OPENAI_API_KEY" in store.describe() and KEY not in store.describe()
    # saving just the environment's key keeps it there: no session copy
    assert store.set_api_keys([KEY]) == ENVIRONMENT
    assert store.stored_api_keys() == ([], SESSION_ONLY)
    # a key the user types wins over the environment for this session
    assert store.set_api_keys([KEY2]) == SESSION_ONLY
    assert store.get_api_keys() == [KEY2]


def test_old_keyring_plain_runtime_error_is_no_keyring():
    """shared case 34-keyring-no-backend-headless.json: older keyring raised a plain RuntimeError."""
    backend = RaisingKeyring(RuntimeError("No recommended backend was available. Install ..."))
    store = SecretStore(BASE, keyring_backend=backend)
    assert store.set_api_keys([KEY]) == SESSION_ONLY
    assert store.problem == f"{NO_KEYRING_TEXT}."


def test_no_keyring_error_from_a_working_looking_backend():
    """shared case 34-keyring-no-backend-headless.json: NoKeyringError raised on use, not on detection."""
    store = SecretStore(BASE, keyring_backend=RaisingKeyring(NoKeyringError("nope")))
    assert store.get_api_keys() == []
    assert store.problem == f"{NO_KEYRING_TEXT}."


# ---- locked keyring, dismissed prompt, D-Bus errors ----------------------------------------------


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (KeyringLocked("Failed to unlock the collection!"), "locked"),
        (InitError("Failed to create the collection: Prompt dismissed."), "could not be opened"),
        (OSError("org.freedesktop.DBus.Error.NoReply: Prompt dismissed"), "prompt was dismissed"),
        (ConnectionRefusedError("the bus is gone"), "could not be used"),
    ],
)
def test_keyring_failures_are_explained_and_fall_back(exc, expected, caplog):
    """shared case 34-keyring-no-backend-headless.json (KeyringLocked / dismissed unlock prompt
    variants): a clear message, the key kept for this session, no crash, no key in any log line."""
    caplog.set_level(logging.DEBUG)
    backend = RaisingKeyring(exc)
    store = SecretStore(BASE, keyring_backend=backend)
    assert store.set_api_keys([KEY, KEY2]) == SESSION_ONLY
    assert expected in store.problem
    assert store.get_api_keys() == [KEY, KEY2]
    assert store.where() == SESSION_ONLY
    # the keyring is not asked again after a failure (no stream of unlock prompts)
    assert backend.calls == ["set"]
    assert KEY not in caplog.text and KEY2 not in caplog.text
    assert KEY not in store.describe()


def test_retry_keyring_after_unlock():
    """A keyring that was locked and later unlocked is used again after retry_keyring()."""
    backend = RaisingKeyring(KeyringLocked("Failed to unlock the collection!"))
    store = SecretStore(BASE, keyring_backend=backend)
    assert store.set_api_keys([KEY]) == SESSION_ONLY
    assert "save again" not in store.describe()

    backend.exc = None  # the user unlocked it
    assert store.retry_keyring() is True
    assert store.problem is None
    assert store.where() == SESSION_ONLY  # still only in memory until saved again
    assert "save again" in store.describe()
    assert store.set_api_keys(store.get_api_keys()) == SYSTEM_KEYRING
    assert json.loads(backend.data[(SERVICE, f"api-keys:{BASE}")]) == [KEY]


# ---- refused backends ------------------------------------------------------------------------------


def test_plaintext_backend_is_refused(tmp_path):
    """keyrings.alt's file backends write keys readably: treated as no keyring, never handed a key."""
    backend = PlaintextLikeKeyring()
    store = SecretStore(BASE, keyring_backend=backend)
    assert store.set_api_keys([KEY]) == SESSION_ONLY
    assert store.problem.startswith(NO_KEYRING_TEXT)
    assert "keyrings.alt" in store.problem
    assert backend.data == {} and backend.calls == []
    assert _files_containing([tmp_path], KEY) == []


def test_low_priority_backend_is_refused():
    """A backend with priority < 1 (keyring's own definition of "not recommended") is not used."""

    class Weak(DictKeyring):
        priority = 0.9

    _not_detectable(Weak)

    backend = Weak()
    store = SecretStore(BASE, keyring_backend=backend)
    assert store.set_api_keys([KEY]) == SESSION_ONLY
    assert "not a recommended" in store.problem
    assert backend.calls == []


def test_null_backend_is_refused(monkeypatch):
    """keyring's `null` backend silently forgets keys: treated as no keyring."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    keyring.core.init_backend()
    store = SecretStore(BASE)
    assert store.set_api_keys([KEY]) == SESSION_ONLY
    assert store.get_api_keys() == [KEY]
    assert store.problem == f"{NO_KEYRING_TEXT}."


def test_broken_backend_setting_is_no_crash(monkeypatch):
    """PYTHON_KEYRING_BACKEND naming a backend that is not installed (e.g. keyrings.alt)."""
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyrings.alt.file.PlaintextKeyring")
    keyring.core._keyring_backend = None
    store = SecretStore(BASE)
    assert store.set_api_keys([KEY]) == SESSION_ONLY
    assert store.problem.startswith(NO_KEYRING_TEXT)
    assert "keyrings" in store.problem  # says what failed to load


# ---- the happy path ---------------------------------------------------------------------------------


def test_keys_saved_as_one_json_entry_per_provider():
    backend = DictKeyring()
    store = SecretStore(BASE, keyring_backend=backend)
    assert store.where() == SYSTEM_KEYRING and store.problem is None
    assert store.set_api_keys([KEY, " ", KEY2, KEY]) == SYSTEM_KEYRING  # blanks and duplicates dropped
    assert backend.data == {(SERVICE, f"api-keys:{BASE}"): json.dumps([KEY, KEY2])}
    # a new store (a restart) reads them back, in order
    again = SecretStore(BASE, keyring_backend=backend)
    assert again.get_api_keys() == [KEY, KEY2]
    assert again.stored_api_keys() == ([KEY, KEY2], SYSTEM_KEYRING)
    assert "system keyring" in again.describe()


def test_providers_are_separate_and_urls_normalised():
    backend = DictKeyring()
    store = SecretStore(keyring_backend=backend)
    store.set_api_keys([KEY], "HTTPS://API.DeepSeek.com/v1/")
    store.set_api_keys([KEY2], "http://localhost:1234/v1")
    assert store.get_api_keys("https://api.deepseek.com/v1") == [KEY]
    assert store.get_api_keys("http://localhost:1234/v1/") == [KEY2]
    assert store.get_api_keys("http://localhost:8080/v1") == []
    assert normalize_base_url("HTTPS://API.DeepSeek.com/v1/") == "https://api.deepseek.com/v1"


def test_default_provider_is_the_saved_base_url():
    """SecretStore() without a base URL follows the settings' OpenAI-compatible base URL."""
    backend = DictKeyring()
    Settings(openai_base_url="http://localhost:8000/v1").save()
    SecretStore(keyring_backend=backend).set_api_keys([KEY])
    assert (SERVICE, "api-keys:http://localhost:8000/v1") in backend.data
    assert SecretStore("http://localhost:8000/v1", keyring_backend=backend).get_api_keys() == [KEY]


def test_keyring_entry_wins_over_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY2)
    backend = DictKeyring()
    store = SecretStore(BASE, keyring_backend=backend)
    assert store.get_api_keys() == [KEY2] and store.where() == ENVIRONMENT  # nothing saved yet
    assert "OPENAI_API_KEY" in store.describe()
    store.set_api_keys([KEY])
    assert store.get_api_keys() == [KEY] and store.where() == SYSTEM_KEYRING


def test_delete_keys():
    backend = DictKeyring()
    store = SecretStore(BASE, keyring_backend=backend)
    store.set_api_keys([KEY])
    assert store.delete_api_keys() == SYSTEM_KEYRING
    assert backend.data == {}
    assert store.get_api_keys() == []
    assert store.delete_api_keys() == SYSTEM_KEYRING  # deleting nothing is fine


def test_bare_key_entry_is_read():
    """An entry holding one bare key (written by hand with `keyring set`) is read as one key."""
    backend = DictKeyring()
    backend.data[(SERVICE, f"api-keys:{BASE}")] = KEY
    assert SecretStore(BASE, keyring_backend=backend).get_api_keys() == [KEY]


# ---- masking and start-up cost --------------------------------------------------------------------


def test_mask_key():
    """secrets.mask_key is the app's one masking rule (core/backends/keypool.py)."""
    masked = mask_key(KEY)
    assert masked.startswith("sk-…") and KEY[-3:] in masked
    assert KEY[3:-3] not in masked and len(masked) < 10
    assert "short" not in mask_key("short-key")


def test_keyring_is_imported_lazily():
    """Importing the module and creating a store stays off keyring's ~0.3 s import and detection."""
    code = (
        "import sys\n"
        "from desktop_agent.core.secrets import SecretStore\n"
        "s = SecretStore('http://x/v1')\n"
        "assert 'keyring' not in sys.modules, 'keyring imported eagerly'\n"
        "print('ok')\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, env={**os.environ}, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
