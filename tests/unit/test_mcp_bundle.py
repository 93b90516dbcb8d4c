"""MCP bundles (.mcpb) built in the test from the manifest spec: a python bundle (a tiny SDK stdio server) and a
node bundle (a tiny node script) install under the data folder and their tools run through the real MCP manager;
sensitive user_config values go to the keyring, never the settings file; a newer version replaces the old; a bad
manifest, a missing or too old runtime, another platform or a zip-slip path installs nothing."""

from __future__ import annotations

import json
import sys
import zipfile
from pathlib import Path

import pytest

from desktop_agent.core.mcp.bundle import (
    BundleError,
    bundles_dir,
    install,
    open_bundle,
    previous_values,
    prune,
    requirements,
    summary,
    uninstall_files,
)
from desktop_agent.core.mcp.bundle_manifest import satisfies
from desktop_agent.core.mcp.config import secret_keys
from desktop_agent.core.mcp.manager import McpManager
from desktop_agent.core.secrets import SecretStore
from desktop_agent.core.settings import Settings
from tests.helpers import bundles
from tests.helpers.keyrings import DictKeyring

pytestmark = pytest.mark.usefixtures("clean_keyring_state")
KEY = "gk-secret-value-1234"


class Saved:
    """The settings file, as the installer's ``save`` sees it."""

    def __init__(self) -> None:
        self.settings = Settings()

    def __call__(self, change):
        self.settings = change(self.settings)
        return self.settings


@pytest.fixture
def store() -> SecretStore:
    return SecretStore(keyring_backend=DictKeyring())


@pytest.fixture
def python_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", bundles.python_on_path(tmp_path))


def _call(settings: Settings, store: SecretStore, server: str, tool: str, args: dict) -> str:
    manager = McpManager(settings.mcp.servers, store)
    manager.start()
    try:
        states = manager.wait_ready(timeout_s=60)
        assert [s.state for s in states] == ["ready"], [s.line() for s in states] + [s.stderr for s in states]
        result = manager.call(server, tool, args)
        return json.dumps(result, default=str) if not isinstance(result, str) else result
    finally:
        manager.close()


def _left(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")) if home.exists() else []


def test_python_bundle_installs_and_its_tool_runs_with_the_secret_from_the_keyring(tmp_path, store, python_path):
    bundle = open_bundle(bundles.python_bundle(tmp_path))
    assert bundle.manifest.title == "Greeter" and bundle.manifest.author == "Test Author"
    assert [t for t, _ in bundle.manifest.tools] == ["greet"]
    assert any("API key (string, required, secret)" in line for line in summary(bundle))
    saved = Saved()
    notes = install(bundle, {"api_key": KEY, "greeting": "Howdy"}, saved, store)
    server = saved.settings.mcp.servers[0]
    assert server.name == "greeter" and server.cwd == str(bundles_dir() / "greeter" / "1.0.0")
    assert (bundles_dir() / "greeter" / "1.0.0" / "server" / "main.py").is_file()
    assert server.secret_env == ["GREETER_KEY"] and "GREETER_KEY" not in server.env
    assert KEY not in saved.settings.model_dump_json()  # never in the settings file
    assert store.get_secret("mcp:greeter:env:GREETER_KEY") == KEY
    assert any("keyring" in n for n in notes)
    text = _call(saved.settings, store, "greeter", "greet", {"name": "Ada"})
    assert "Howdy, Ada! (key of 20 characters, ends 34)" in text


def test_newer_version_replaces_the_old_and_uninstall_removes_files_and_secrets(tmp_path, store, python_path):
    saved = Saved()
    install(open_bundle(bundles.python_bundle(tmp_path, "1.0.0")), {"api_key": KEY, "greeting": "Hi"}, saved, store)
    newer = open_bundle(bundles.python_bundle(tmp_path, "1.1.0"))
    assert previous_values(newer) == {"greeting": "Hi"}  # offered again; never the secret
    install(newer, {"api_key": KEY + "x"}, saved, store)
    assert [s.name for s in saved.settings.mcp.servers] == ["greeter"]
    assert _left(bundles_dir() / "greeter")[:1] == ["1.1.0"]
    assert not (bundles_dir() / "greeter" / "1.0.0").exists()
    assert saved.settings.mcp.servers[0].cwd.endswith("1.1.0")
    assert store.get_secret("mcp:greeter:env:GREETER_KEY") == KEY + "x"
    assert "Hello, Bo!" in _call(saved.settings, store, "greeter", "greet", {"name": "Bo"})  # the default greeting
    for key, _label in secret_keys(saved.settings.mcp.servers[0]):
        store.set_secret(key, None)
    assert uninstall_files("greeter") and not (bundles_dir() / "greeter").exists()
    assert store.get_secret("mcp:greeter:env:GREETER_KEY") is None


def test_node_bundle_with_a_multiple_directory_value_expanded_as_arguments(tmp_path, store):
    bundle = open_bundle(bundles.node_bundle(tmp_path))
    saved = Saved()
    install(bundle, {"dirs": [str(tmp_path / "one"), str(tmp_path / "two")]}, saved, store)
    server = saved.settings.mcp.servers[0]
    assert server.args[1:] == [str(tmp_path / "one"), str(tmp_path / "two")]
    text = _call(saved.settings, store, "shouter", "shout", {"text": "hi"})
    assert f"HI! in {tmp_path / 'one'},{tmp_path / 'two'}" in text


@pytest.mark.parametrize("manifest, why", [
    ("{not json", "not JSON"),
    (None, "no manifest.json"),
    ({"manifest_version": "0.3", "name": "x", "version": "1", "description": "d", "author": {"name": "a"}},
     "no server object"),
    (bundles.python_manifest(server={"type": "ruby", "entry_point": "server/main.py",
                                     "mcp_config": {"command": "ruby"}}), "server.type is 'ruby'"),
    (bundles.python_manifest(author={}), "no author.name"),
    (bundles.python_manifest(server={"type": "python", "entry_point": "server/other.py",
                                     "mcp_config": {"command": "python", "args": []}}), "not in the bundle"),
    (bundles.python_manifest(server={"type": "python", "entry_point": "server/main.py",
                                     "mcp_config": {"command": "python", "args": ["${user_config.nope}"]}}),
     "does not declare"),
])
def test_a_bad_manifest_says_why_and_installs_nothing(tmp_path, store, manifest, why):
    path = bundles.build(tmp_path / "bad.mcpb", manifest, {"server/main.py": bundles.PY_SERVER})
    with pytest.raises(BundleError, match=why):
        open_bundle(path)
    assert _left(bundles_dir()) == []


@pytest.mark.parametrize("name", ["../evil.py", "server/../../evil.py", "/tmp/evil.py"])
def test_zip_slip_is_refused_and_nothing_is_written(tmp_path, store, name):
    path = bundles.build(tmp_path / "slip.mcpb", bundles.python_manifest(),
                         {"server/main.py": bundles.PY_SERVER, name: "print('owned')"})
    with pytest.raises(BundleError, match="zip-slip"):
        open_bundle(path)
    assert _left(bundles_dir()) == [] and not (tmp_path.parent / "evil.py").exists()


def test_a_symbolic_link_in_the_zip_is_refused(tmp_path):
    path = tmp_path / "link.mcpb"
    bundles.build(path, bundles.python_manifest(), {"server/main.py": bundles.PY_SERVER})
    with zipfile.ZipFile(path, "a") as archive:
        info = zipfile.ZipInfo("server/passwd")
        info.external_attr = (0o120777 << 16)
        archive.writestr(info, "/etc/passwd")
    with pytest.raises(BundleError, match="symbolic link"):
        open_bundle(path)


def test_too_large_when_unpacked_is_refused(tmp_path, monkeypatch):
    from desktop_agent.core.mcp import bundle as bundle_module

    monkeypatch.setattr(bundle_module, "MAX_UNPACKED_BYTES", 10_000)
    path = bundles.build(tmp_path / "big.mcpb", bundles.python_manifest(),
                         {"server/main.py": bundles.PY_SERVER, "server/blob.bin": b"\0" * 50_000})
    with pytest.raises(BundleError, match="unpack to"):
        open_bundle(path)


def test_a_missing_runtime_says_what_to_install_and_installs_nothing(tmp_path, store):
    manifest = bundles.python_manifest(server={"type": "uv", "entry_point": "server/main.py"})
    bundle = open_bundle(bundles.build(tmp_path / "uv.mcpb", manifest, {"server/main.py": bundles.PY_SERVER}))
    command, problems = requirements(bundle.manifest)
    if not problems:
        pytest.skip("uv is installed on this machine: it is not missing")
    assert command == "uv" and "uv was not found" in problems[0] and "install uv" in problems[0]
    saved = Saved()
    with pytest.raises(BundleError, match="uv was not found"):
        install(bundle, {"api_key": KEY}, saved, store)
    assert saved.settings.mcp.servers == [] and _left(bundles_dir()) == []
    assert store.get_secret("mcp:greeter:env:GREETER_KEY") is None


def test_a_runtime_too_old_or_another_platform_installs_nothing(tmp_path, store):
    too_new = bundles.node_manifest(compatibility={"runtimes": {"node": ">=99.0.0"},
                                                   "platforms": ["darwin" if sys.platform != "darwin" else "win32"]})
    bundle = open_bundle(bundles.build(tmp_path / "n.mcpb", too_new, {"server/index.js": bundles.NODE_SERVER}))
    _command, problems = requirements(bundle.manifest)
    assert any("runs on" in p and "only" in p for p in problems)
    assert any("needs Node.js >=99.0.0" in p for p in problems)
    with pytest.raises(BundleError, match=r"needs Node\.js"):
        install(bundle, {}, Saved(), store)
    assert _left(bundles_dir()) == []


def test_a_required_field_left_empty_or_a_failed_save_installs_nothing(tmp_path, store, python_path):
    bundle = open_bundle(bundles.python_bundle(tmp_path))
    with pytest.raises(BundleError, match="fill in API key"):
        install(bundle, {}, Saved(), store)

    def broken_save(change):
        change(Settings())  # the secret is stored, then the settings file cannot be written
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        install(bundle, {"api_key": KEY}, broken_save, store)
    assert _left(bundles_dir()) == []
    assert store.get_secret("mcp:greeter:env:GREETER_KEY") is None


def test_prune_deletes_the_files_of_a_removed_bundle_not_of_a_renamed_one(tmp_path, store, python_path):
    saved = Saved()
    install(open_bundle(bundles.python_bundle(tmp_path)), {"api_key": KEY}, saved, store)
    install(open_bundle(bundles.node_bundle(tmp_path)), {}, saved, store)
    greeter, _shouter = saved.settings.mcp.servers
    renamed = saved.settings.updated({"mcp.servers": [greeter.model_copy(update={"name": "hello"}).model_dump()]})
    assert prune(renamed) == ["shouter"]
    assert (bundles_dir() / "greeter" / "1.0.0").is_dir() and not (bundles_dir() / "shouter").exists()
    assert prune(Settings()) == ["greeter"] and _left(bundles_dir()) == []


def test_a_failed_reinstall_keeps_the_installed_version(tmp_path, store, python_path):
    saved = Saved()
    bundle = open_bundle(bundles.python_bundle(tmp_path))
    install(bundle, {"api_key": KEY}, saved, store)

    def broken_save(_change):
        raise OSError("disk full")

    with pytest.raises(OSError):
        install(bundle, {"api_key": KEY}, broken_save, store)
    assert _left(bundles_dir() / "greeter")[:1] == ["1.0.0"]
    assert (bundles_dir() / "greeter" / "1.0.0" / "server" / "main.py").is_file()
    assert [p for p in _left(bundles_dir() / "greeter") if p.startswith(".")] == []


def test_versions_are_compared_as_the_spec_writes_them():
    assert satisfies("20.11.1", ">=16.0.0") and not satisfies("14.2.0", ">=16.0.0")
    assert satisfies("3.11.4", ">=3.8,<4.0") and not satisfies("4.0.0", ">=3.8,<4.0")
    assert satisfies("1.4.0", "^1.2.3") and not satisfies("2.0.0", "^1.2.3")


def test_a_binary_bundle_runs_its_own_program_made_executable(tmp_path, store):
    manifest = bundles.node_manifest(name="runner", server={
        "type": "binary", "entry_point": "server/run",
        "mcp_config": {"command": "server/run", "args": ["${user_config.dirs}"], "env": {"SUFFIX": "?"}}})
    manifest.pop("compatibility")
    script = "#!/bin/sh\nexec node \"$(dirname \"$0\")/index.js\" \"$@\"\n"  # stored without any mode bits
    path = bundles.build(tmp_path / "runner.mcpb", manifest, {"server/run": script,
                                                             "server/index.js": bundles.NODE_SERVER})
    saved = Saved()
    install(open_bundle(path), {"dirs": ["/x"]}, saved, store)
    program = bundles_dir() / "runner" / "0.2.0" / "server" / "run"
    assert program.stat().st_mode & 0o100
    assert "HI? in /x" in _call(saved.settings, store, "runner", "shout", {"text": "hi"})
