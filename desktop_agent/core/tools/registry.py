""":class:`ToolRegistry`: the tools available to the agent (registration, names, lookup, the ``tools=`` payload);
its :meth:`~ToolRegistry.dispatch` runs one call (see :mod:`desktop_agent.core.tools.dispatch`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.dispatch import DEFAULT_TIMEOUT_S, dispatch_call
from desktop_agent.core.tools.permissions import ChatPermissions, PermissionEngine
from desktop_agent.core.tools.results import DEFAULT_OUTPUT_CAP, ProgressReport, ToolResult

if TYPE_CHECKING:
    from desktop_agent.core.tools.host import ToolHost


class ToolRegistry:
    """The tools available to the agent, and the one place where they are run.

    ``timeout_s``: default per-call timeout in seconds (a tool's own ``timeout_s`` wins; None or 0: no
    timeout, only cancellation). ``output_cap``: maximum characters of ``ToolResult.content`` (None or
    0: no cap). ``permissions``: the :class:`~desktop_agent.core.tools.permissions.PermissionEngine` that decides
    every call (default: a new one with no rules — the default policies). ``host``: the
    :class:`~desktop_agent.core.tools.host.ToolHost` whose child processes run the calls (None: they run in
    threads of this process).
    """

    def __init__(self, timeout_s: float | None = DEFAULT_TIMEOUT_S, output_cap: int | None = DEFAULT_OUTPUT_CAP,
                 permissions: PermissionEngine | None = None, host: ToolHost | None = None) -> None:
        self.timeout_s = timeout_s
        self.output_cap = output_cap
        self.permissions = permissions if permissions is not None else PermissionEngine()
        self.host = host
        self._tools: dict[str, Tool] = {}
        self._lock = threading.Lock()

    # -- registration -------------------------------------------------------------------------------

    def register(self, fn_or_tool: Callable[..., Any] | Tool, *, source: str = "") -> Tool:
        """Add a tool (a :class:`Tool`, a function marked with ``@tool``, or a plain function).

        Raises ``ValueError`` naming the tool when the name is taken, ``TypeError``/``ValueError`` when
        the schema cannot be built.
        """
        if isinstance(fn_or_tool, Tool):
            new = fn_or_tool
            if source:
                new.source = source
        elif callable(fn_or_tool):
            new = Tool.from_function(fn_or_tool, source=source)
        else:
            raise TypeError(f"cannot register {type(fn_or_tool).__name__} as a tool")
        with self._lock:
            old = self._tools.get(new.name)
            if old is not None:
                where = f" (from {old.source})" if old.source else ""
                raise ValueError(f"a tool named '{new.name}' is already registered{where}")
            self._tools[new.name] = new
        return new

    def unregister(self, name: str) -> None:
        """Remove a tool (no error if absent)."""
        with self._lock:
            self._tools.pop(name, None)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in registration order."""
        return list(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def subset(self, names: Iterable[str]) -> ToolRegistry:
        """A registry of only the tools named in ``names`` (unknown names are ignored), in this registry's
        order, sharing the same :class:`Tool` objects, timeout, output cap and permission engine: nothing is loaded
        again."""
        wanted = set(names)
        return self._sharing([t for t in self._tools.values() if t.name in wanted])

    def without(self, names: Iterable[str]) -> ToolRegistry:
        """A registry of every tool but those named in ``names`` (see :meth:`subset`)."""
        unwanted = set(names)
        return self._sharing([t for t in self._tools.values() if t.name not in unwanted])

    def with_tools(self, tools: Iterable[Tool]) -> ToolRegistry:
        """A registry of this registry's tools followed by ``tools`` (an MCP server's; a name already taken is
        skipped), sharing the same timeout, output cap, permission engine and host."""
        extra = [t for t in tools if t.name not in self._tools]
        return self._sharing([*self._tools.values(), *extra])

    def _sharing(self, tools: list[Tool]) -> ToolRegistry:
        other = ToolRegistry(timeout_s=self.timeout_s, output_cap=self.output_cap, permissions=self.permissions,
                             host=self.host)
        other._tools = {t.name: t for t in tools}
        return other

    def schemas(self) -> list[dict[str, Any]]:
        """The ``tools=`` payload, the same for Ollama and OpenAI (see :meth:`Tool.schema`)."""
        return [t.schema() for t in self]

    # -- dispatch -----------------------------------------------------------------------------------

    def dispatch(self, name: str, arguments: str | dict[str, Any] | None,
                 cancel: threading.Event | None = None, *, chat: ChatPermissions | None = None,
                 call_id: str | None = None, progress: ProgressReport | None = None) -> ToolResult:
        """Run tool ``name`` with ``arguments`` and return its :class:`ToolResult`. Never raises.

        With this registry's timeout, output cap and permission engine; ``chat``: the chat's grants and asker
        (None: a call that must be asked about is denied); ``progress``: where the tool reports progress. See
        :func:`~desktop_agent.core.tools.dispatch.dispatch_call` for what each failure becomes.
        """
        return dispatch_call(self._tools, name, arguments, cancel, timeout_s=self.timeout_s,
                             output_cap=self.output_cap, permissions=self.permissions, chat=chat, call_id=call_id,
                             host=self.host, progress=progress)

    def close(self) -> None:
        """Stop the tool host's processes, if any (a registry sharing the host — :meth:`subset` — stops it too)."""
        if self.host is not None:
            self.host.close()
