"""The shipped file tools (tools/files.py) and the allowed-folders check they share (desktop_agent.toolkit),
run through the registry as the model's calls are: real files, real symbolic links, the real settings file."""

from __future__ import annotations

import json
import os
import sys

import pytest

from desktop_agent.core import paths
from desktop_agent.core.settings import Settings, read_saved
from desktop_agent.core.tools.loader import load_tools
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.toolkit import ALLOWED_FOLDERS_ENV, allowed_folders, allowed_path
from tests.unit.scripted import AllowAll


@pytest.fixture(scope="module")
def registry() -> ToolRegistry:
    reg = ToolRegistry(timeout_s=10, permissions=AllowAll())  # the user allows every call here
    assert load_tools(reg, user_dir=False, entry_points=False) == []
    return reg


@pytest.fixture
def allowed(tmp_path, monkeypatch):
    """One allowed folder (through the environment variable), beside a folder that is not allowed."""
    inside = tmp_path / "allowed"
    inside.mkdir()
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "key.txt").write_text("top secret", encoding="utf-8")
    monkeypatch.setenv(ALLOWED_FOLDERS_ENV, str(inside))
    return inside


def call(registry: ToolRegistry, tool_name: str, /, **arguments):
    result = registry.dispatch(tool_name, arguments)
    return result, (json.loads(result.content) if result.ok else None)


def test_the_file_tools_declare_what_they_do(registry):
    for name in ("list_directory", "read_text_file", "search_files"):
        assert registry.get(name).read_only and not registry.get(name).destructive
    write = registry.get("write_text_file")
    assert write.destructive and not write.read_only and write.requires_approval
    assert registry.get("search_files").accepts_cancel
    assert "cancel" not in registry.get("search_files").parameters["properties"]


def test_a_write_nobody_approved_does_not_happen(allowed):
    alone = ToolRegistry(timeout_s=10)  # no one to ask (a run without a terminal)
    assert load_tools(alone, user_dir=False, entry_points=False) == []
    result = alone.dispatch("write_text_file", {"path": "a.txt", "content": "x"})
    assert result.status == "denied" and not (allowed / "a.txt").exists()
    result = alone.dispatch("run_shell_command", {"command": "touch b.txt"})
    assert result.status == "denied" and not (allowed / "b.txt").exists()


# ---- no folder allowed yet ---------------------------------------------------------------------------


def test_with_no_folder_allowed_every_file_tool_asks_the_user_to_add_one(registry, tmp_path):
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    for name, args in (("list_directory", {"path": str(tmp_path)}),
                       ("read_text_file", {"path": str(tmp_path / "a.txt")}),
                       ("search_files", {"path": str(tmp_path)}),
                       ("write_text_file", {"path": str(tmp_path / "b.txt"), "content": "y"})):
        result = registry.dispatch(name, args)
        assert result.status == "error", name
        assert "Settings → Tools" in result.content and "no folder is allowed" in result.content, name
    assert not (tmp_path / "b.txt").exists()


def test_the_allowed_folders_come_from_the_saved_settings_at_each_call(registry, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "note.txt").write_text("from the settings", encoding="utf-8")
    assert allowed_folders() == []
    Settings().updated({"tools.allowed_folders": [str(folder), str(tmp_path / "missing")]}).save()
    assert read_saved().tools.allowed_folders == [str(folder), str(tmp_path / "missing")]
    assert allowed_folders() == [folder.resolve()]  # a folder that does not exist is left out
    _result, data = call(registry, "read_text_file", path="note.txt")
    assert data["content"] == "from the settings"


def test_reading_the_saved_folders_never_touches_a_damaged_settings_file():
    path = paths.settings_file()
    path.write_text("{not json", encoding="utf-8")
    assert allowed_folders() == []
    assert path.read_text(encoding="utf-8") == "{not json"
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # nothing moved or copied aside


# ---- the folder boundary -----------------------------------------------------------------------------


def test_paths_outside_the_allowed_folders_are_refused_after_dots_and_links_are_resolved(allowed, tmp_path):
    secret = tmp_path / "secret"
    (allowed / "link-out").symlink_to(secret)
    (allowed / "file-link").symlink_to(secret / "key.txt")
    (allowed / "sub").mkdir()
    assert allowed_path("sub/new.txt") == allowed / "sub" / "new.txt"
    assert allowed_path(str(allowed)) == allowed
    for bad in ("../secret/key.txt", str(secret / "key.txt"), "sub/../../secret", "link-out/key.txt",
                "file-link", "link-out", "~", "/"):
        with pytest.raises(Exception, match="outside the folders tools may use") as info:
            allowed_path(bad)
        assert type(info.value).__name__ == "OutsideAllowedFolders"


def test_a_similarly_named_sibling_folder_is_not_inside(allowed, tmp_path):
    sibling = tmp_path / "allowed-2"
    sibling.mkdir()
    with pytest.raises(Exception, match="outside"):
        allowed_path(str(sibling / "x.txt"))


def test_a_write_outside_is_refused_even_when_the_model_insists(registry, allowed, tmp_path):
    target = tmp_path / "secret" / "key.txt"
    (allowed / "link-out").symlink_to(tmp_path / "secret")
    for path in (str(target), "../secret/key.txt", "link-out/key.txt", "link-out/new.txt"):
        for _ in range(3):
            result = registry.dispatch("write_text_file", {"path": path, "content": "overwritten"})
            assert result.status == "error"
            assert "outside the folders tools may use" in result.content
    assert target.read_text(encoding="utf-8") == "top secret"
    assert not (tmp_path / "secret" / "new.txt").exists()


# ---- list, read, search, write -----------------------------------------------------------------------


def test_list_directory_lists_names_types_and_sizes(registry, allowed):
    (allowed / "b.txt").write_text("12345", encoding="utf-8")
    (allowed / "A folder").mkdir()
    (allowed / ".hidden").write_text("", encoding="utf-8")
    _result, data = call(registry, "list_directory")
    assert data["folder"] == str(allowed)
    assert [(e["name"], e["type"], e.get("size")) for e in data["entries"]] == [("A folder", "folder", None),
                                                                              ("b.txt", "file", 5)]
    _result, data = call(registry, "list_directory", path=".", show_hidden=True)
    assert ".hidden" in [e["name"] for e in data["entries"]]
    result = registry.dispatch("list_directory", {"path": "nope"})
    assert result.status == "error" and "does not exist" in result.content


@pytest.mark.parametrize(("raw", "encoding", "text"), [
    ("naïve café 中文".encode(), "utf-8", "naïve café 中文"),
    (b"\xef\xbb\xbfwith BOM", "utf-8-sig", "with BOM"),
    ("UTF-16 é".encode("utf-16"), "utf-16", "UTF-16 é"),
    ("Windows café – €".encode("cp1252"), "cp1252", "Windows café – €"),
])
def test_read_text_file_detects_the_encoding(registry, allowed, raw, encoding, text):
    (allowed / "f.txt").write_bytes(raw)
    _result, data = call(registry, "read_text_file", path="f.txt")
    assert data["content"] == text
    if "charset_normalizer" not in sys.modules or encoding != "cp1252":
        assert data["encoding"] == encoding


def test_read_text_file_is_capped_and_says_so(registry, allowed):
    (allowed / "big.txt").write_text("é" * 5000, encoding="utf-8")  # 10,000 bytes
    _result, data = call(registry, "read_text_file", path="big.txt", max_bytes=1001)
    assert data["content"] == "é" * 500  # the half character at the cut is dropped, not garbled
    assert data["size"] == 10_000 and "1,001 of 10,000" in data["truncated"]
    result = registry.dispatch("read_text_file", {"path": "big.txt", "max_bytes": 10**9})
    assert result.status == "error"  # more than the cap: a validation error the model can read


def test_read_text_file_refuses_binary_files_and_folders(registry, allowed):
    (allowed / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    assert "binary" in registry.dispatch("read_text_file", {"path": "img.png"}).content
    assert "folder" in registry.dispatch("read_text_file", {"path": "."}).content


def test_search_files_by_name_and_by_text(registry, allowed):
    (allowed / "notes").mkdir()
    (allowed / "notes" / "Plan.MD").write_text("step one\nBuy milk\nstep two\n", encoding="utf-8")
    (allowed / "notes" / "other.md").write_text("nothing here\n", encoding="utf-8")
    (allowed / "readme.txt").write_text("buy MILK too\n", encoding="utf-8")
    (allowed / ".git").mkdir()
    (allowed / ".git" / "x.md").write_text("milk", encoding="utf-8")
    _r, data = call(registry, "search_files", name="*.md")
    assert sorted(m["path"] for m in data["matches"]) == [str(allowed / "notes" / "Plan.MD"),
                                                         str(allowed / "notes" / "other.md")]
    _r, data = call(registry, "search_files", text="milk")
    assert {m["path"]: m["lines"] for m in data["matches"]} == {
        str(allowed / "notes" / "Plan.MD"): [{"line": 2, "text": "Buy milk"}],
        str(allowed / "readme.txt"): [{"line": 1, "text": "buy MILK too"}],
    }
    _r, data = call(registry, "search_files", name="*", max_results=1)
    assert len(data["matches"]) == 1 and "first 1 matches" in data["note"]


def test_search_files_does_not_follow_links_out_of_the_folder(registry, allowed, tmp_path):
    (allowed / "link-out").symlink_to(tmp_path / "secret")
    (allowed / "file-link.txt").symlink_to(tmp_path / "secret" / "key.txt")
    _r, data = call(registry, "search_files", text="secret")
    assert data["matches"] == []


def test_write_text_file_writes_atomically_and_keeps_the_mode(registry, allowed):
    _r, data = call(registry, "write_text_file", path="new/dir/a.txt", content="héllo\n")
    assert data == {"path": str(allowed / "new" / "dir" / "a.txt"), "written_bytes": 7, "created": True}
    target = allowed / "new" / "dir" / "a.txt"
    assert target.read_bytes() == "héllo\n".encode()
    os.chmod(target, 0o640)
    _r, data = call(registry, "write_text_file", path=str(target), content="second")
    assert data["created"] is False and target.read_text(encoding="utf-8") == "second"
    assert oct(target.stat().st_mode & 0o777) == oct(0o640)
    assert sorted(p.name for p in target.parent.iterdir()) == ["a.txt"]  # no temporary file left


def test_a_failed_write_leaves_the_old_file_whole(registry, allowed, monkeypatch):
    target = allowed / "keep.txt"
    target.write_text("old text", encoding="utf-8")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)  # the disk fills up while the new text is written
    result = registry.dispatch("write_text_file", {"path": "keep.txt", "content": "new " * 10_000})
    assert result.status == "error" and "No space left on device" in result.content
    assert target.read_text(encoding="utf-8") == "old text"
    assert sorted(p.name for p in allowed.iterdir()) == ["keep.txt"]


def test_write_through_a_link_inside_the_folder_writes_the_linked_file(registry, allowed):
    (allowed / "real.txt").write_text("a", encoding="utf-8")
    (allowed / "alias.txt").symlink_to(allowed / "real.txt")
    _r, data = call(registry, "write_text_file", path="alias.txt", content="b")
    assert data["path"] == str(allowed / "real.txt")
    assert (allowed / "real.txt").read_text(encoding="utf-8") == "b"
