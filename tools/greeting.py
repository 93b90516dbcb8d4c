"""The smallest useful tool: the pattern to copy for your own.

Put a file like this one in your tools folder (``desktop-agent tools`` lists where it is), restart the
app, and the model can call it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from desktop_agent import tool


@tool(read_only=True)
def say_hello(
    name: Annotated[str, Field(description="The name of the person to greet, e.g. 'Ada'.")],
) -> str:
    """Greet someone by name.

    Returns a one-line greeting the assistant can pass on.
    """
    name = " ".join(name.split())
    return f"Hello, {name}!" if name else "Hello!"
