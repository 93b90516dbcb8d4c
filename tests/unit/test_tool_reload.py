"""Assembly.reload_tools: tool files loaded again without a restart; a broken file costs only itself; the
folders file tools may use are read per call and never cause a reload."""

from __future__ import annotations

from desktop_agent.core import paths
from desktop_agent.core.assembly import Assembly
from desktop_agent.core.settings import Settings

TOOL = '''
from desktop_agent import tool


@tool
def {name}() -> str:
    """Say which version of the file this is."""
    return "{answer}"
'''


def test_reload_loads_new_and_changed_files_and_counts_from_the_next_agent(tmp_path):
    settings = Settings()
    assembly = Assembly()
    first = assembly.registry(settings)
    assert first is not None and "fresh_tool" not in first
    folder = paths.user_tools_dir()
    (folder / "fresh.py").write_text(TOOL.format(name="fresh_tool", answer="one"), encoding="utf-8")
    assert assembly.registry(settings) is first  # nothing reloads by itself
    tools, problems = assembly.reload_tools(settings)
    assert problems == [] and "fresh_tool" in [t.name for t in tools]
    assert assembly.tools_generation == 1
    assert assembly.registry(settings).dispatch("fresh_tool", "").content == "one"

    (folder / "fresh.py").write_text(TOOL.format(name="fresh_tool", answer="two"), encoding="utf-8")
    (folder / "broken.py").write_text("import does_not_exist_anywhere\n", encoding="utf-8")
    tools, problems = assembly.reload_tools(settings)
    assert len(problems) == 1 and "broken.py: failed to load (ModuleNotFoundError" in problems[0]
    assert {"fresh_tool", "calculator"} <= {t.name for t in tools}
    assert assembly.registry(settings).dispatch("fresh_tool", "").content == "two"
    assert assembly.pending_problems == []  # the caller shows them; the next turn does not repeat them
    agent_tools = assembly.agent(settings).registry
    assert agent_tools is not None and "fresh_tool" in agent_tools


def test_changing_the_allowed_folders_or_the_switches_does_not_reload_the_tools(tmp_path):
    settings = Settings()
    assembly = Assembly()
    registry = assembly.registry(settings)
    changed = settings.updated({"tools.allowed_folders": [str(tmp_path)], "tools.disabled": ["calculator"]})
    assert assembly.registry(changed) is registry
