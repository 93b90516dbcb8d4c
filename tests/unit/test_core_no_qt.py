"""The core package never imports Qt (ARCHITECTURE.md: a test imports core with PySide6 blocked)."""

import subprocess
import sys

CORE_MODULES = [
    "desktop_agent.core.agent",
    "desktop_agent.core.capabilities",
    "desktop_agent.core.textcalls",
    "desktop_agent.core.arguments",
    "desktop_agent.core.streams",
    "desktop_agent.core.tools.registry",
    "desktop_agent.core.tools.loader",
    "desktop_agent.core.store",
    "desktop_agent.core.settings",
    "desktop_agent.core.secrets",
    "desktop_agent.core.context",
    "desktop_agent.core.backends.ollama",
    "desktop_agent.core.backends.openai",
    "desktop_agent.core.backends.keypool",
    "desktop_agent.core.backends.reasons",
    "desktop_agent.core.backends.sse",
    "desktop_agent.core.capabilities",
    "desktop_agent.cli.parser",
    "desktop_agent.cli.errors",
    "desktop_agent.cli.output",
    "desktop_agent.cli.turn",
    "desktop_agent.cli.chat",
    "desktop_agent.cli.tools",
    "desktop_agent.cli.history",
]


def test_core_imports_with_pyside6_blocked():
    code = (
        "import sys; sys.modules['PySide6'] = None\n"
        f"import importlib\nfor m in {CORE_MODULES!r}: importlib.import_module(m)\n"
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
