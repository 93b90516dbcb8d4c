"""Fixtures and helpers for the window tests: real widgets offscreen, real backends against the local protocol
servers. ``make_window`` and ``ollama_settings`` are in tests/conftest.py (the adversarial window tests use
them too).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import desktop_agent.ui  # noqa: F401  (applies the PySide6 6.12 refcount guard before any Qt use)

# the helpers moved to tests/helpers/; still importable from here for tests written before the move
from tests.helpers.gui import confirm_stop as confirm_stop
from tests.helpers.gui import free_port as free_port
from tests.helpers.gui import last_turn_text as last_turn_text
from tests.helpers.gui import source_of as source_of
from tests.helpers.gui import wait_idle as wait_idle
from tests.helpers.replies import text_lines as text_lines
from tests.helpers.replies import tool_call_lines as tool_call_lines


@pytest.fixture
def tools_dir(tmp_path) -> Path:
    """A user tools folder with a slow tool and a tool that needs approval."""
    d = tmp_path / "extra_tools"
    d.mkdir()
    (d / "testing_tools.py").write_text(
        textwrap.dedent(
            '''
            import time
            from desktop_agent import tool

            @tool
            def slow_op(seconds: float = 0.6) -> str:
                """Wait a little, then say done."""
                time.sleep(seconds)
                return "done"

            @tool(timeout_s=60)
            def hang() -> str:
                """Never returns in time (case 28)."""
                time.sleep(100)
                return "never"

            @tool(requires_approval=True)
            def delete_everything(path: str) -> str:
                """Pretend to delete a folder (needs the user's approval)."""
                return f"deleted {path}"
            '''
        ),
        encoding="utf-8",
    )
    return d


@pytest.fixture
def view(qtbot):
    """A chat view, 900 × 700, shown (the streaming and rendering tests)."""
    from desktop_agent.ui.chat.view import ChatView

    v = ChatView()
    v.resize(900, 700)
    v.show()
    qtbot.waitExposed(v)
    yield v
    v.close()
    v.deleteLater()


