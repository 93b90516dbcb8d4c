"""A tool declares what it does: read-only or destructive (the permission engine reads these)."""

import pytest

from desktop_agent import tool
from desktop_agent.core.tools.definition import Tool


def test_destructive_and_read_only_are_recorded_on_the_tool():
    @tool(destructive=True)
    def remove(path: str) -> str:
        """Remove a file."""
        return path

    @tool(read_only=True)
    def look(path: str) -> str:
        """Look at a file."""
        return path

    assert (Tool.from_function(remove).destructive, Tool.from_function(remove).read_only) == (True, False)
    assert (Tool.from_function(look).destructive, Tool.from_function(look).read_only) == (False, True)


def test_a_tool_cannot_be_both():
    def f() -> str:
        """F."""
        return ""

    with pytest.raises(ValueError, match="both"):
        tool(read_only=True, destructive=True)(f)
    with pytest.raises(ValueError, match="both"):
        Tool(f, read_only=True, destructive=True)
