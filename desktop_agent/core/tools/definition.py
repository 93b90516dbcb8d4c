""":class:`Tool`: one function the model can call, with its name, description, JSON schema and argument model;
it validates arguments (:meth:`Tool.prepare`) and calls the function (:meth:`Tool.invoke`)."""

from __future__ import annotations

import copy
import inspect
import json
import re
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from desktop_agent.core.tools.decorator import TOOL_MARKER, ToolOptions
from desktop_agent.core.tools.docstrings import parse_docstring
from desktop_agent.core.tools.schema import allows_string, arguments_schema, build_argument_model

if TYPE_CHECKING:
    from desktop_agent.core.tools.results import ProgressReport

_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class Tool:
    """A function the model can call, with its schema and its pydantic argument model.

    Attributes: ``name``, ``description``, ``parameters`` (the JSON schema dict), ``fn``,
    ``requires_approval``, ``read_only`` / ``destructive`` (what the tool declares it does), ``inline`` (a quick
    function that never blocks, called in the calling thread), ``timeout_s``
    (seconds, None = the registry default), ``source`` (where it
    was loaded from: "shipped", "user", a folder, "entry point NAME"), ``model`` (the pydantic model
    validating arguments), ``accepts_cancel`` (the function takes ``cancel: threading.Event``),
    ``reports_progress`` (False: a Python function reports no progress).

    Raises ``TypeError`` when a parameter's type cannot be expressed as JSON schema, ``ValueError`` for
    an invalid name.
    """

    #: a quick function that never blocks: called in the dispatching thread (see ``dispatch._run_inline``); a
    #: subclass that builds itself without ``__init__`` (an MCP tool) is not inline
    inline: bool = False
    #: the tool reports how far it is while it runs (through :meth:`invoke`'s ``progress``): a Python function
    #: does not, an MCP server's tool does. A call of a tool that cannot report is waited for without a
    #: worker carrying its reports (see :func:`desktop_agent.core.tool_step.dispatch`)
    reports_progress: bool = False

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        requires_approval: bool = False,
        timeout_s: float | None = None,
        source: str = "",
        read_only: bool = False,
        destructive: bool = False,
        inline: bool = False,
    ) -> None:
        self.fn = fn
        fn_name: str = getattr(fn, "__name__", "")
        self.name: str = name or fn_name
        if not _NAME_RE.match(self.name or ""):
            raise ValueError(
                f"invalid tool name {self.name!r}: use 1–64 letters, digits, '_' or '-' "
                "(give one with @tool(name=...))"
            )
        doc_description, doc_params = parse_docstring(inspect.getdoc(fn))
        self.description = (description if description is not None else doc_description).strip()
        self.requires_approval = bool(requires_approval)
        self.timeout_s = timeout_s
        self.source = source
        if read_only and destructive:
            raise ValueError(f"tool {self.name!r} cannot be both read_only and destructive")
        self.read_only = bool(read_only)
        self.destructive = bool(destructive)
        self.inline = bool(inline)
        arguments = build_argument_model(fn, self.name, doc_params)
        self.model = arguments.model
        self.accepts_cancel = arguments.accepts_cancel
        self._aliases = arguments.aliases  # field name → parameter name
        self._positional = arguments.positional  # positional-only parameters, in order
        self._required_in_python = arguments.required_in_python
        self.parameters: dict[str, Any] = arguments_schema(self.model)
        self._json_params = {
            pname for pname, prop in self.parameters["properties"].items()
            if isinstance(prop, dict) and not allows_string(prop)
        }

    @classmethod
    def from_function(cls, fn: Callable[..., Any], *, source: str = "") -> Tool:
        """A Tool from a function, using the options recorded by ``@tool`` (defaults if unmarked)."""
        opts = getattr(fn, TOOL_MARKER, None)
        if not isinstance(opts, ToolOptions):
            opts = ToolOptions()
        return cls(fn, name=opts.name, description=opts.description, requires_approval=opts.requires_approval,
                   timeout_s=opts.timeout_s, source=source, read_only=opts.read_only,
                   destructive=opts.destructive, inline=opts.inline)

    def schema(self) -> dict[str, Any]:
        """``{"type": "function", "function": {"name", "description", "parameters"}}`` (a fresh copy)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy.deepcopy(self.parameters),
            },
        }

    def prepare(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate ``arguments`` (parameter name → JSON value) and return the keyword arguments for the
        function (nested models as model instances, enums as members).

        A JSON string given where the schema wants an object or array is decoded first (models send
        nested objects as JSON text).
        Raises ``pydantic.ValidationError``.
        """
        data = dict(arguments)
        for pname in self._json_params:
            value = data.get(pname)
            if isinstance(value, str) and value.strip()[:1] in ("{", "["):
                try:
                    decoded = json.loads(value)
                except json.JSONDecodeError:
                    continue
                if isinstance(decoded, (dict, list)):
                    data[pname] = decoded
        validated = self.model.model_validate(data)
        given = validated.model_fields_set
        kwargs: dict[str, Any] = {}
        for field_name, pname in self._aliases.items():
            if field_name in given or pname in self._required_in_python or pname in self._positional:
                kwargs[pname] = getattr(validated, field_name)
        return kwargs

    def invoke(self, kwargs: dict[str, Any], cancel: threading.Event | None = None,
               progress: ProgressReport | None = None) -> Any:
        """Call the function with prepared keyword arguments (see :meth:`prepare`) in this thread. ``progress``:
        where a tool that reports progress reports it (a Python tool does not)."""
        args = [kwargs.pop(p) for p in self._positional if p in kwargs]
        if self.accepts_cancel:
            kwargs["cancel"] = cancel if cancel is not None else threading.Event()
        result = self.fn(*args, **kwargs)
        if inspect.isawaitable(result):  # an async def tool: run it to completion in this worker thread
            import asyncio

            result = asyncio.run(_await(result))
        return result

    def __repr__(self) -> str:
        return f"Tool({self.name!r}, source={self.source!r})"


async def _await(awaitable: Any) -> Any:
    return await awaitable
