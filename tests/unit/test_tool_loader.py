"""core/tools/loader.py: shipped tools, the user's folder, extra folders and entry points; one broken
module never stops the others."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from desktop_agent.core import paths
from desktop_agent.core.tools.loader import load_dir, load_tools, shipped_tools_dir
from desktop_agent.core.tools.registry import ToolRegistry

SHIPPED = {"today", "day_of_week", "say_hello", "get_current_weather", "calculator", "list_directory",
           "read_text_file", "search_files", "write_text_file", "fetch_url", "run_shell_command"}

GOOD = '''
from typing import Annotated
from pydantic import Field
from desktop_agent import tool

@tool
def {name}(text: Annotated[str, Field(description="Some text.")]) -> str:
    """Echo the text."""
    return "{name}:" + text
'''


def write(folder: Path, filename: str, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def test_shipped_tools_load_without_problems():
    registry = ToolRegistry()
    problems = load_tools(registry, user_dir=False, entry_points=False)
    assert problems == []
    assert set(registry.names()) == SHIPPED
    assert {t.source for t in registry} == {"shipped"}
    folder = shipped_tools_dir()
    assert folder is not None and (folder / "clock.py").is_file()


def test_installed_layout_prefers_package_shipped_tools(tmp_path, monkeypatch):
    """In a wheel the tools live in desktop_agent/shipped_tools (pyproject force-include)."""
    import desktop_agent

    package = tmp_path / "site" / "desktop_agent"
    write(package / "shipped_tools", "hello.py", GOOD.format(name="installed_hello"))
    monkeypatch.setattr(desktop_agent, "__file__", str(package / "__init__.py"))
    assert shipped_tools_dir() == package / "shipped_tools"
    registry = ToolRegistry()
    assert load_tools(registry, user_dir=False, entry_points=False) == []
    assert registry.names() == ["installed_hello"]


def test_broken_modules_are_isolated_and_reported_by_file(tmp_path):
    folder = tmp_path / "mytools"
    write(folder, "a_good.py", GOOD.format(name="echo_a"))
    write(folder, "b_syntax.py", "def broken(:\n    pass\n")
    write(folder, "c_import.py", "import no_such_module_for_desktop_agent_tests\n")
    write(folder, "d_raises.py", "raise RuntimeError('config missing')\n")
    write(folder, "e_exits.py", "import sys\nsys.exit(2)\n")
    write(folder, "f_dup.py", GOOD.format(name="echo_a"))
    write(folder, "g_bad_schema.py", '''
        from desktop_agent import tool

        class Opaque:
            pass

        @tool
        def needs_opaque(thing: Opaque) -> str:
            """Bad."""
            return ""

        @tool
        def fine_too(x: int) -> int:
            """Fine."""
            return x
        ''')
    write(folder, "h_good.py", GOOD.format(name="echo_h"))
    write(folder, "_private.py", "raise RuntimeError('must not be loaded')\n")
    write(folder, "notes.txt", "not python")

    registry = ToolRegistry()
    problems = load_tools(registry, [folder], shipped=False, user_dir=False, entry_points=False)

    assert registry.names() == ["echo_a", "fine_too", "echo_h"]
    assert all(t.source == str(folder) for t in registry)
    text = "\n".join(problems)
    assert len(problems) == 6, text
    assert any("b_syntax.py" in p and "syntax error at line 1" in p for p in problems)
    assert any("c_import.py" in p and "ModuleNotFoundError" in p and "no_such_module" in p for p in problems)
    assert any("d_raises.py" in p and "RuntimeError: config missing" in p for p in problems)
    assert any("e_exits.py" in p and "SystemExit" in p for p in problems)
    assert any("f_dup.py" in p and "'echo_a' is already registered" in p for p in problems)
    assert any("g_bad_schema.py" in p and "needs_opaque" in p and "parameter 'thing'" in p for p in problems)
    assert "_private" not in text
    # a failed module leaves nothing behind in sys.modules
    assert not [m for m in sys.modules if m.startswith("desktop_agent_tools_") and m.endswith("_b_syntax")]
    # the loaded tools work
    assert registry.dispatch("echo_h", {"text": "x"}).content == "echo_h:x"


def test_user_tools_dir_is_loaded_with_source_user():
    write(paths.user_tools_dir(), "mine.py", GOOD.format(name="my_echo"))
    registry = ToolRegistry()
    assert load_tools(registry, shipped=False, entry_points=False) == []
    assert registry.get("my_echo").source == "user"


def test_shipped_tool_wins_over_a_user_tool_of_the_same_name():
    write(paths.user_tools_dir(), "override.py", GOOD.format(name="say_hello"))
    registry = ToolRegistry()
    problems = load_tools(registry, entry_points=False)
    assert registry.get("say_hello").source == "shipped"
    assert len(problems) == 1 and "override.py" in problems[0] and "say_hello" in problems[0]


def test_same_file_name_in_two_folders_loads_both(tmp_path):
    write(tmp_path / "one", "common.py", GOOD.format(name="echo_one"))
    write(tmp_path / "two", "common.py", GOOD.format(name="echo_two"))
    registry = ToolRegistry()
    problems = load_tools(registry, [tmp_path / "one", tmp_path / "two"], shipped=False, user_dir=False,
                          entry_points=False)
    assert problems == []
    assert registry.dispatch("echo_one", {"text": "a"}).content == "echo_one:a"
    assert registry.dispatch("echo_two", {"text": "b"}).content == "echo_two:b"


def test_package_folder_with_relative_import_and_forward_references(tmp_path):
    pkg = tmp_path / "tools" / "geo"
    write(pkg, "__init__.py", '''
        from __future__ import annotations
        from pydantic import BaseModel
        from desktop_agent import tool
        from .helpers import distance

        @tool
        def how_far(a: Place, b: Place) -> str:
            """Distance between two places in km."""
            return f"{distance(a.lat, a.lon, b.lat, b.lon):.0f} km"

        class Place(BaseModel):
            lat: float
            lon: float
        ''')
    write(pkg, "helpers.py", '''
        import math

        def distance(lat1, lon1, lat2, lon2):
            return math.dist((lat1, lon1), (lat2, lon2)) * 111
        ''')
    registry = ToolRegistry()
    assert load_tools(registry, [tmp_path / "tools"], shipped=False, user_dir=False, entry_points=False) == []
    result = registry.dispatch("how_far", {"a": {"lat": 0, "lon": 0}, "b": {"lat": 0, "lon": 1}})
    assert result.content == "111 km"
    assert "$ref" not in str(registry.get("how_far").parameters)


def test_imported_tool_is_not_registered_twice(tmp_path):
    """A module re-exporting a tool object that is already registered is not a duplicate."""
    registry = ToolRegistry()
    load_tools(registry, shipped=True, user_dir=False, entry_points=False)
    module = sys.modules[registry.get("say_hello").fn.__module__]
    from desktop_agent.core.tools.loader import register_module

    assert register_module(registry, module, source="again", label="again") == []
    assert registry.get("say_hello").source == "shipped"


def test_missing_extra_folder_is_a_problem_not_an_exception(tmp_path):
    registry = ToolRegistry()
    problems = load_tools(registry, [tmp_path / "nope"], shipped=False, user_dir=False, entry_points=False)
    assert problems == [f"{tmp_path / 'nope'}: tools folder does not exist"]
    assert load_dir(registry, tmp_path / "nope", source="x") == problems


@pytest.fixture
def entry_point_site(tmp_path, monkeypatch):
    """A real installed-distribution layout on sys.path: a module plus a .dist-info with entry points."""
    site = tmp_path / "site"
    write(site, "ep_demo_tools.py", GOOD.format(name="ep_echo"))
    write(site, "ep_demo_single.py", '''
        from desktop_agent import tool

        @tool
        def ep_single() -> str:
            """Single."""
            return "single"
        ''')
    dist = site / "ep_demo-1.0.dist-info"
    write(dist, "METADATA", "Metadata-Version: 2.1\nName: ep-demo\nVersion: 1.0\n")
    write(dist, "entry_points.txt", textwrap.dedent("""
        [desktop_agent.tools]
        demo = ep_demo_tools
        single = ep_demo_single:ep_single
        broken = ep_demo_missing_module
        """))
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in ("ep_demo_tools", "ep_demo_single"):
        sys.modules.pop(name, None)


def test_entry_points_register_modules_and_functions(entry_point_site):
    registry = ToolRegistry()
    problems = load_tools(registry, shipped=False, user_dir=False, entry_points=True)
    assert registry.get("ep_echo").source == "entry point demo"
    assert registry.get("ep_single").source == "entry point single"
    assert registry.dispatch("ep_single", None).content == "single"
    assert len(problems) == 1
    assert "entry point broken" in problems[0] and "ModuleNotFoundError" in problems[0]


def test_everything_together_never_raises(tmp_path, entry_point_site):
    write(paths.user_tools_dir(), "bad.py", "this is not python\n")
    registry = ToolRegistry()
    problems = load_tools(registry, [tmp_path / "missing"])
    assert set(registry.names()) >= SHIPPED
    assert {"ep_echo", "ep_single"} <= set(registry.names())
    assert len(problems) == 3
