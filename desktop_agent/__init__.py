"""desktop-agent: a desktop AI assistant for Ollama and OpenAI-compatible servers.

The API for tool authors is :func:`tool`::

    from typing import Annotated
    from pydantic import Field
    from desktop_agent import tool

    @tool
    def say_hello(name: Annotated[str, Field(description="Who to greet")]) -> str:
        \"\"\"Greet someone by name.\"\"\"
        return f"Hello, {name}!"
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # type checkers see the real names; at run time __getattr__ imports them on first use
    from desktop_agent.core.tools.decorator import ToolError, tool

__version__ = "0.1.0"

__all__ = ["ToolError", "__version__", "tool"]


def __getattr__(name: str) -> Any:
    # Lazy so that `import desktop_agent` stays cheap; the decorator module itself needs no pydantic.
    if name == "tool":
        from desktop_agent.core.tools.decorator import tool

        return tool
    if name == "ToolError":
        from desktop_agent.core.tools.decorator import ToolError

        return ToolError
    raise AttributeError(name)
