"""The process-wide memory lives in ``core/state.py`` and one ``reset()`` returns the process to a fresh one."""

from __future__ import annotations

import ast
from pathlib import Path
from types import SimpleNamespace

import keyring.backends.fail

import desktop_agent
from desktop_agent import tool
from desktop_agent.core import paths, state
from desktop_agent.core.model_info import ModelFacts, facts_key
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.dispatch import dispatch_call


class _Backend(SimpleNamespace):
    """A backend as the caches key it (weakly referenceable, hashable by identity)."""

    __hash__ = object.__hash__


BACKEND = _Backend(name="openai", base_url="http://127.0.0.1:8080/v1", model="smollm2")

#: the names reset() puts fresh objects in place of
CACHES = {"LEARNED", "CALIBRATION", "FACTS", "NO_LONE_CLOSE", "PERMISSIONS", "SESSION_KEYS", "SESSION_SECRETS"}


def _learn_everything(tmp_path: Path) -> None:
    state.LEARNED.learn(BACKEND, tools=False)
    state.CALIBRATION.learn_window(("openai", BACKEND.base_url, "smollm2"), 4096)
    state.FACTS.put(facts_key(BACKEND), ModelFacts(8192))
    state.NO_LONE_CLOSE.setdefault(BACKEND, set()).add("smollm2")
    state.PERMISSIONS.allow_for_run(["danger"])
    state.SESSION_KEYS["https://api.openai.com/v1"] = ["sk-session"]
    state.SESSION_SECRETS["mcp/token"] = "secret"
    paths.set_home(tmp_path)


def test_reset_forgets_everything_learned_or_told_for_the_session(tmp_path):
    _learn_everything(tmp_path)
    state.reset()
    assert state.LEARNED.learned(BACKEND).tools is True
    assert state.CALIBRATION.window(("openai", BACKEND.base_url, "smollm2")) is None
    assert state.FACTS.peek(facts_key(BACKEND)) is None
    assert BACKEND not in state.NO_LONE_CLOSE
    assert not state.PERMISSIONS.rules.rules()
    assert state.SESSION_KEYS == {} and state.SESSION_SECRETS == {}
    assert paths.home_override() is None


def test_the_modules_read_the_state_after_a_reset(tmp_path):
    """Nothing keeps the old objects: a dispatch without an engine uses the fresh one, a secret store the
    fresh session keys."""
    @tool(requires_approval=True)
    def danger() -> str:
        """Changes things."""
        return "done"

    tools = {"danger": Tool.from_function(danger)}
    state.PERMISSIONS.allow_for_run(["danger"])
    assert dispatch_call(tools, "danger", {}).content == "done"
    store = SecretStore("http://127.0.0.1:8080/v1", keyring_backend=keyring.backends.fail.Keyring())
    store.set_api_keys(["sk-a-session-only-key-0123456789"])
    assert store.get_api_keys() == ["sk-a-session-only-key-0123456789"]
    state.reset()
    assert dispatch_call(tools, "danger", {}).status == "denied"  # no one to ask, no rule any more
    assert store.get_api_keys() == []


def test_no_module_copies_a_cache_reset_replaces():
    """``from desktop_agent.core.state import LEARNED`` would keep the object of before a reset."""
    root = Path(desktop_agent.__file__).parent
    copied = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "desktop_agent.core.state":
                copied += [f"{path.relative_to(root)}: {a.name}" for a in node.names if a.name in CACHES]
    assert copied == []
