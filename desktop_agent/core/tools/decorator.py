"""The API of tool authors: the :func:`tool` decorator and :class:`ToolError` (re-exported by ``desktop_agent``).

Kept free of pydantic and of the rest of the tool machinery: ``from desktop_agent import tool`` imports only
this module. The schema is built later, when the loader registers the marked function.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, TypeVar, overload

#: The attribute :func:`tool` sets on a function; the loader registers every function that has it.
TOOL_MARKER = "__desktop_agent_tool__"

F = TypeVar("F", bound=Callable[..., Any])


class ToolError(Exception):
    """Raise from a tool to report a failure in your own words: the model receives ``Error: <message>``
    (without the exception class name)."""


@dataclasses.dataclass(frozen=True)
class ToolOptions:
    """What ``@tool(...)`` recorded on a function (stored under :data:`TOOL_MARKER`)."""

    name: str | None = None
    description: str | None = None
    requires_approval: bool = False
    timeout_s: float | None = None
    read_only: bool = False
    destructive: bool = False
    inline: bool = False


@overload
def tool(fn: F) -> F: ...


@overload
def tool(
    fn: None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
    read_only: bool = False,
    destructive: bool = False,
    inline: bool = False,
) -> Callable[[F], F]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
    read_only: bool = False,
    destructive: bool = False,
    inline: bool = False,
) -> Any:
    """Mark a function as a tool; returns the function unchanged (still callable directly, e.g. in tests).

    Use bare (``@tool``) or with options (``@tool(name="x", description="…", requires_approval=True,
    timeout_s=5)``). ``timeout_s`` is in seconds (None: the registry's default; 0: no timeout, the call
    ends only when the tool returns or the user presses Stop). ``read_only=True`` declares that the tool
    changes nothing (it may be allowed by default); ``destructive=True`` that it changes or deletes things
    (its calls always ask unless the user made a rule for exactly that). ``inline=True`` declares a quick
    function that never blocks (no I/O, no waiting: it returns within milliseconds): run in this process, it
    is called in the agent's own thread instead of being handed to a worker thread (see
    :func:`~desktop_agent.core.tools.dispatch.dispatch_call`). Nothing is registered
    here: the loader (or ``ToolRegistry.register``) finds marked functions and builds the schema
    then, so type hints may refer to names defined later in the module.

    Raises ``TypeError`` when applied to something that is not a function.
    """

    def mark(func: F) -> F:
        if not callable(func) or inspect.isclass(func):
            raise TypeError(f"@tool must decorate a function, not {type(func).__name__}")
        if timeout_s is not None and timeout_s < 0:
            raise ValueError("timeout_s must be >= 0 seconds")
        if read_only and destructive:
            raise ValueError("a tool cannot be both read_only and destructive")
        setattr(
            func,
            TOOL_MARKER,
            ToolOptions(name=name, description=description, requires_approval=requires_approval,
                        timeout_s=timeout_s, read_only=read_only, destructive=destructive, inline=inline),
        )
        return func

    if fn is not None:
        return mark(fn)
    return mark


def is_tool(obj: Any) -> bool:
    """True when ``obj`` is a function marked with :func:`tool`."""
    try:
        return isinstance(getattr(obj, TOOL_MARKER, None), ToolOptions) and callable(obj)
    except Exception:  # noqa: BLE001 — objects with an odd __getattr__ are simply not tools
        return False
