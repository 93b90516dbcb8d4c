"""The core package never imports Qt (ARCHITECTURE.md: a test imports every core module with PySide6 blocked)."""

import pkgutil
import subprocess
import sys
from types import ModuleType

import desktop_agent.cli
import desktop_agent.core


def modules_of(package: ModuleType) -> list[str]:
    """Every module of ``package`` (found, not listed: a new module is checked too)."""
    return [package.__name__] + [
        info.name for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + ".")
    ]


def no_qt_modules() -> list[str]:
    """The core, and the terminal surface held to the same rule (``desktop-agent chat`` runs where there is no
    display, and no Qt)."""
    return modules_of(desktop_agent.core) + modules_of(desktop_agent.cli)


def test_every_core_module_is_found():
    """The walk reaches into the sub-packages (a walk that stopped at the top would check little)."""
    found = no_qt_modules()
    assert {"desktop_agent.cli.chat", "desktop_agent.core.agent", "desktop_agent.core.tools.dispatch",
            "desktop_agent.core.store.schema", "desktop_agent.core.backends.openai",
            "desktop_agent.core.mcp.manager"} <= set(found)
    assert len(found) > 60


def test_core_imports_with_pyside6_blocked():
    code = (
        "import sys; sys.modules['PySide6'] = None\n"
        f"import importlib\nfor m in {no_qt_modules()!r}: importlib.import_module(m)\n"
        "assert not any(k.startswith('PySide6.') for k in sys.modules)\n"
        "print('ok')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_importing_the_package_is_cheap():
    """`import desktop_agent.app` must not pull the LLM clients, keyring or Qt (start-up cost)."""
    code = (
        "import sys, desktop_agent.app\n"
        "heavy = [m for m in ('openai', 'ollama', 'keyring', 'PySide6', 'markdown_it', 'pygments')\n"
        "         if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_the_tool_author_api_is_light():
    """`from desktop_agent import tool, ToolError` imports only the decorator: no pydantic, no registry."""
    code = (
        "import sys\n"
        "from desktop_agent import ToolError, tool\n"
        "@tool(timeout_s=1)\n"
        "def f() -> str:\n"
        "    return 'x'\n"
        "assert issubclass(ToolError, Exception) and f() == 'x'\n"
        "loaded = [m for m in sys.modules if m == 'pydantic' or m.startswith('desktop_agent.core.')]\n"
        "print(','.join(sorted(loaded)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "desktop_agent.core.tools,desktop_agent.core.tools.decorator"
