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

__version__ = "0.1.0"

__all__ = ["ToolError", "__version__", "tool"]


def __getattr__(name: str):
    # Lazy so that `import desktop_agent` stays cheap (pydantic is imported only when tools are used).
    if name == "tool":
        from desktop_agent.core.tooling import tool

        return tool
    if name == "ToolError":
        from desktop_agent.core.tooling import ToolError

        return ToolError
    raise AttributeError(name)
