"""Tools the model can call: the :func:`tool` decorator, :class:`Tool`, :class:`ToolRegistry`.

What a tool author writes::

    from typing import Annotated
    from pydantic import Field
    from desktop_agent import tool

    @tool
    def get_current_weather(
        location: Annotated[str, Field(description="City name, e.g. 'Paris'")],
        unit: Literal["celsius", "fahrenheit"] = "celsius",
    ) -> dict:
        \"\"\"Get the current weather in a given location.

        Args:
            unit: Temperature unit of the answer.
        \"\"\"

Everything the model sees is derived from the function (no hand-written schema, no type→schema table):

- **name**: the function name (or ``@tool(name=...)``); must match ``^[A-Za-z0-9_-]{1,64}$`` (the OpenAI
  rule, which Ollama accepts too).
- **description**: the docstring's first paragraph (or ``@tool(description=...)``).
- **parameters**: a JSON schema built by pydantic (``create_model``) from the signature and type hints.
  A parameter's description comes from ``Annotated[..., Field(description=...)]``, else from the
  docstring's Google-style ``Args:`` section (``:param name:`` lines work too). The schema is cleaned for
  picky servers: ``$defs``/``$ref`` are inlined (servers that do not resolve them show the model untyped
  parameters), ``Optional[X] = None`` becomes the type of ``X`` and is not required (strict servers refuse
  a property without a top-level ``type``), ``title`` noise is dropped, ``Literal``/``Enum`` become
  ``enum``, and a tool without parameters gets ``{"type": "object", "properties": {}}``.

Calling conventions for tool authors:

- Return a ``str`` (sent as is) or anything JSON-serialisable (dict, list, number, pydantic model,
  dataclass…; sent as JSON text with ``ensure_ascii=False`` so non-ASCII text stays readable, not as
  ``\\uXXXX`` escapes that small models misread).
- Raise an exception to report a failure: the model gets ``Error: ValueError: <message>`` (no traceback).
  Raise :class:`ToolError` to send your message alone: ``Error: <message>``.
- A tool runs in a worker thread with a timeout (``@tool(timeout_s=...)``, else the registry's default of
  30 s). A tool that never returns is abandoned (its daemon thread keeps running until it ends; the app
  can still exit). To stop early, declare a parameter ``cancel: threading.Event``: it is not shown to the
  model, and it is set when the user presses Stop or the timeout expires — check ``cancel.is_set()`` in
  loops, or use ``cancel.wait(seconds)`` instead of ``time.sleep``.
- ``@tool(requires_approval=True)``: the registry asks its ``approver(tool, arguments) -> bool`` before
  running it (the window shows a dialog); without an approver the call is denied.

Wire format: the ``tools=`` payload is the OpenAI Chat Completions shape
``{"type": "function", "function": {"name", "description", "parameters"}}`` (OpenAI API reference,
"Function calling"), which Ollama's ``/api/chat`` accepts unchanged (Ollama docs/api.md, "tools").
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as _dt
import difflib
import enum
import inspect
import json
import logging
import math
import re
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import PurePath
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

from desktop_agent.core.arguments import parse_tool_arguments
from desktop_agent.core.errors import ToolTimedOut
from desktop_agent.core.messages import clean_text
from desktop_agent.core.streams import run_watched

log = logging.getLogger(__name__)

#: The attribute :func:`tool` sets on a function; the loader registers every function that has it.
TOOL_MARKER = "__desktop_agent_tool__"

#: Default timeout of a tool call, in seconds.
DEFAULT_TIMEOUT_S = 30.0
#: Default cap, in characters, of a tool result sent to the model.
DEFAULT_OUTPUT_CAP = 16_000

_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

Approver = Callable[["Tool", dict[str, Any]], bool]


class ToolError(Exception):
    """Raise from a tool to report a failure in your own words: the model receives ``Error: <message>``
    (without the exception class name)."""


# --------------------------------------------------------------------------------------------------
# the decorator


@dataclasses.dataclass(frozen=True)
class ToolOptions:
    """What ``@tool(...)`` recorded on a function (stored under :data:`TOOL_MARKER`)."""

    name: str | None = None
    description: str | None = None
    requires_approval: bool = False
    timeout_s: float | None = None


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
):
    """Mark a function as a tool; returns the function unchanged (still callable directly, e.g. in tests).

    Use bare (``@tool``) or with options (``@tool(name="x", description="…", requires_approval=True,
    timeout_s=5)``). ``timeout_s`` is in seconds (None: the registry's default; 0: no timeout, the call
    ends only when the tool returns or the user presses Stop). Nothing is registered
    here: the loader (or :meth:`ToolRegistry.register`) finds marked functions and builds the schema
    then, so type hints may refer to names defined later in the module.

    Raises ``TypeError`` when applied to something that is not a function.
    """

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(func) or inspect.isclass(func):
            raise TypeError(f"@tool must decorate a function, not {type(func).__name__}")
        if timeout_s is not None and timeout_s < 0:
            raise ValueError("timeout_s must be >= 0 seconds")
        setattr(
            func,
            TOOL_MARKER,
            ToolOptions(name=name, description=description, requires_approval=requires_approval,
                        timeout_s=timeout_s),
        )
        return func

    if fn is not None:
        return mark(fn)
    return mark


def is_tool(obj: Any) -> bool:
    """True when ``obj`` is a function marked with :func:`tool`."""
    try:
        return isinstance(getattr(obj, TOOL_MARKER, None), ToolOptions) and callable(obj)
    except Exception:  # objects with odd __getattr__
        return False


# --------------------------------------------------------------------------------------------------
# docstrings

_SECTION_RE = re.compile(
    r"^\s*(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns|Return|Yields|Raises|"
    r"Examples?|Notes?|Warnings?|Attributes|See Also|Todo)\s*:\s*$",
    re.IGNORECASE,
)
_ARGS_HEADER_RE = re.compile(
    r"^(\s*)(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments)\s*:\s*$", re.IGNORECASE
)
_ARG_LINE_RE = re.compile(r"^\*{0,2}([A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM_RE = re.compile(r"^\s*:param\s+(?:[^:]*\s)?([A-Za-z_]\w*)\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a docstring into ``(description, {parameter: description})``.

    The description is the first paragraph with its lines joined by spaces (it stops at a blank line or
    a section header such as ``Args:``). Parameter descriptions come from a Google-style ``Args:``
    section (``name: text`` or ``name (type): text``, continuation lines indented deeper) or from
    Sphinx ``:param name: text`` lines.
    """
    text = inspect.cleandoc(doc or "")
    lines = text.splitlines()

    first: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped:
            if first:
                break
            continue
        if _SECTION_RE.match(line) or stripped.startswith(":"):
            break
        first.append(stripped)
    description = " ".join(first)

    params: dict[str, str] = {}
    i = 0
    while i < len(lines):
        header = _ARGS_HEADER_RE.match(lines[i])
        sphinx = _SPHINX_PARAM_RE.match(lines[i])
        if sphinx:
            name, parts = sphinx.group(1), [sphinx.group(2).strip()]
            base = len(lines[i]) - len(lines[i].lstrip())
            i += 1
            while i < len(lines) and lines[i].strip() and len(lines[i]) - len(lines[i].lstrip()) > base:
                parts.append(lines[i].strip())
                i += 1
            params.setdefault(name, " ".join(p for p in parts if p))
            continue
        if not header:
            i += 1
            continue
        section_indent = len(header.group(1))
        item_indent: int | None = None
        current: str | None = None
        i += 1
        while i < len(lines):
            line = lines[i]
            if not line.strip():
                i += 1
                continue
            indent = len(line) - len(line.lstrip())
            if indent <= section_indent:
                break
            if item_indent is None:
                item_indent = indent
            if indent == item_indent:
                m = _ARG_LINE_RE.match(line.strip())
                current = m.group(1) if m else None
                if current is not None:
                    params[current] = m.group(2).strip()
            elif current is not None:
                params[current] = (params[current] + " " + line.strip()).strip()
            i += 1
    return description, params


# --------------------------------------------------------------------------------------------------
# schema clean-up

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
               "unevaluatedProperties", "unevaluatedItems")


def _resolve_refs(node: Any, defs: dict[str, Any], stack: tuple[str, ...] = ()) -> Any:
    """Replace every ``{"$ref": "#/$defs/X", ...siblings}`` by a copy of X merged with the siblings.

    A recursive model (X refers to itself) is cut at the second level as ``{"type": "object"}``.
    """
    if isinstance(node, list):
        return [_resolve_refs(v, defs, stack) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node and isinstance(node["$ref"], str):
        ref = node["$ref"]
        key = ref.rsplit("/", 1)[-1]
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if key in stack or key not in defs:
            target: dict[str, Any] = {"type": "object"}
        else:
            target = _resolve_refs(copy.deepcopy(defs[key]), defs, stack + (key,))
        merged = dict(target)
        merged.update(_resolve_refs(siblings, defs, stack))
        return merged
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in ("$defs", "definitions"):
            continue
        if k in _SCHEMA_MAPS and isinstance(v, dict):
            out[k] = {name: _resolve_refs(sub, defs, stack) for name, sub in v.items()}
        elif k in _SCHEMA_LISTS or k in _SCHEMA_ONE:
            out[k] = _resolve_refs(v, defs, stack)
        else:
            out[k] = v
    return out


def _is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null" and len(schema) == 1


def _clean(node: Any) -> Any:
    """Drop ``title``; fold ``anyOf [X, null]`` into X; ``const`` → ``enum``; merge one-item ``allOf``."""
    if isinstance(node, list):
        return [_clean(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k == "title" and isinstance(v, str):
            continue
        if k in _SCHEMA_MAPS and isinstance(v, dict):
            out[k] = {name: _clean(sub) for name, sub in v.items()}
        elif k in _SCHEMA_LISTS or k in _SCHEMA_ONE:
            out[k] = _clean(v)
        else:
            out[k] = v

    # allOf with one member (older pydantic output for a $ref with siblings)
    if isinstance(out.get("allOf"), list) and len(out["allOf"]) == 1 and isinstance(out["allOf"][0], dict):
        only = out.pop("allOf")[0]
        out = {**only, **out}

    for key in ("anyOf", "oneOf"):
        branches = out.get(key)
        if not isinstance(branches, list) or not any(_is_null(b) for b in branches):
            continue
        rest = [b for b in branches if not _is_null(b)]
        del out[key]
        if out.get("default", 0) is None:
            del out["default"]
        if len(rest) == 1 and isinstance(rest[0], dict):
            out = {**rest[0], **out}
        elif rest and all(isinstance(b, dict) and set(b) == {"type"} and isinstance(b["type"], str)
                          for b in rest):
            out["type"] = [b["type"] for b in rest]
        elif rest:
            out[key] = rest

    if "const" in out and "enum" not in out:
        out["enum"] = [out.pop("const")]
    if "type" not in out:
        # strict servers want a top-level "type" on every property (as for Optional[X]): give unions
        # (``int | str``, ``Model | str``, Decimal) and mixed enums the union of their branch types
        kinds = _branch_types(out)
        if kinds:
            branches = out.get("anyOf") or out.get("oneOf")
            if isinstance(branches, list) and all(set(b) == {"type"} for b in branches):
                out.pop("anyOf", None)
                out.pop("oneOf", None)
            out["type"] = kinds[0] if len(kinds) == 1 else kinds
    if isinstance(out.get("default"), float) and not math.isfinite(out["default"]):
        del out["default"]  # NaN / Infinity are not JSON: the whole tools payload would be refused
    if out.get("default", 0) is None and out.get("type") not in (None, "null"):
        # ``default: null`` on a typed property confuses strict validators; "not required" says it all
        del out["default"]
    # readable order: type and description first
    return {k: out[k] for k in sorted(out, key=lambda k: _KEY_ORDER.get(k, len(_KEY_ORDER)))}


_JSON_TYPE_OF = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null",
                 list: "array", dict: "object"}


def _branch_types(schema: dict[str, Any]) -> list[str]:
    """The JSON types a schema without ``type`` allows, from its anyOf/oneOf branches (each must have
    a ``type``) or its enum values; [] when unknown."""
    kinds: list[str] = []
    branches = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(branches, list) and branches:
        for b in branches:
            t = b.get("type") if isinstance(b, dict) else None
            if t is None:
                return []
            for k in t if isinstance(t, list) else [t]:
                if k not in kinds:
                    kinds.append(k)
        return kinds
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        for v in schema["enum"]:
            k = _JSON_TYPE_OF.get(type(v))
            if k is None:
                return []
            if k not in kinds:
                kinds.append(k)
    return kinds


_KEY_ORDER = {"type": 0, "description": 1, "enum": 2, "properties": 3, "items": 4, "required": 5}


def clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Make a pydantic JSON schema acceptable to picky tool-calling servers.

    No ``$ref``/``$defs`` remain (inlined), no ``title``, no ``anyOf`` with a null branch
    (the property takes the other branch's type), ``const`` becomes a one-value ``enum``. The
    top level always has ``"type": "object"`` and ``"properties"``; ``required`` only when non-empty.
    """
    defs = dict(schema.get("$defs", {}) or {})
    defs.update(schema.get("definitions", {}) or {})
    out = _clean(_resolve_refs(schema, defs))
    out["type"] = "object"
    out.setdefault("properties", {})
    if not out.get("required"):
        out.pop("required", None)
    return out


def _allows_string(schema: dict[str, Any]) -> bool:
    """Whether a property schema accepts a JSON string (unknown → True)."""
    kinds = schema.get("type")
    if kinds is None:
        branches = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(branches, list) and branches:
            return any(_allows_string(b) for b in branches if isinstance(b, dict))
        if isinstance(schema.get("enum"), list):
            return any(isinstance(v, str) for v in schema["enum"])
        return True
    if isinstance(kinds, str):
        kinds = [kinds]
    return "string" in kinds


# --------------------------------------------------------------------------------------------------
# Tool


def _is_cancel_param(param: inspect.Parameter, hint: Any) -> bool:
    if param.name != "cancel":
        return False
    if hint is inspect.Parameter.empty or hint is threading.Event:
        return True
    return threading.Event in get_args(hint)


def _has_description(annotation: Any, default: Any) -> bool:
    if isinstance(default, FieldInfo) and default.description:
        return True
    if get_origin(annotation) is Annotated:
        return any(isinstance(m, FieldInfo) and m.description for m in annotation.__metadata__)
    return False


class Tool:
    """A function the model can call, with its schema and its pydantic argument model.

    Attributes: ``name``, ``description``, ``parameters`` (the JSON schema dict), ``fn``,
    ``requires_approval``, ``timeout_s`` (seconds, None = the registry default), ``source`` (where it
    was loaded from: "shipped", "user", a folder, "entry point NAME"), ``model`` (the pydantic model
    validating arguments), ``accepts_cancel`` (the function takes ``cancel: threading.Event``).

    Raises ``TypeError`` when a parameter's type cannot be expressed as JSON schema, ``ValueError`` for
    an invalid name.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        requires_approval: bool = False,
        timeout_s: float | None = None,
        source: str = "",
    ):
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "")
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
        self.accepts_cancel = False
        self._positional: list[str] = []  # positional-only parameters, in order
        self._required_in_python: set[str] = set()
        self.model, self._aliases = self._build_model(doc_params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # non-serialisable defaults are simply left out
            raw = self.model.model_json_schema(by_alias=True)
        self.parameters: dict[str, Any] = clean_schema(raw)
        self._json_params = {
            pname for pname, prop in self.parameters["properties"].items()
            if isinstance(prop, dict) and not _allows_string(prop)
        }

    @classmethod
    def from_function(cls, fn: Callable[..., Any], *, source: str = "") -> Tool:
        """A Tool from a function, using the options recorded by :func:`tool` (defaults if unmarked)."""
        opts = getattr(fn, TOOL_MARKER, None)
        if not isinstance(opts, ToolOptions):
            opts = ToolOptions()
        return cls(fn, name=opts.name, description=opts.description, requires_approval=opts.requires_approval,
                   timeout_s=opts.timeout_s, source=source)

    def _build_model(self, doc_params: dict[str, str]) -> tuple[type[BaseModel], dict[str, str]]:
        fn = self.fn
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"tool '{self.name}': cannot read its signature ({exc})") from exc
        try:
            hints = get_type_hints(fn, include_extras=True)
        except Exception as exc:  # NameError for an unresolvable forward reference, …
            raise TypeError(f"tool '{self.name}': cannot resolve its type hints ({type(exc).__name__}: {exc})") from exc

        fields: dict[str, Any] = {}
        aliases: dict[str, str] = {}  # field name → parameter name
        for index, (pname, param) in enumerate(signature.parameters.items()):
            if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
                continue
            hint = hints.get(pname, param.annotation)
            if _is_cancel_param(param, hint):
                self.accepts_cancel = True
                continue
            default = param.default
            if hint is inspect.Parameter.empty:
                # no type hint: the default's type if it has a simple one, else str
                hint = type(default) if isinstance(default, (bool, int, float, str)) else str
            if param.kind is inspect.Parameter.POSITIONAL_ONLY:
                self._positional.append(pname)
            if default is inspect.Parameter.empty:
                self._required_in_python.add(pname)
            field_name = f"p{index}"
            aliases[field_name] = pname
            extra: dict[str, Any] = {"alias": pname}
            if pname in doc_params and not _has_description(hint, default):
                extra["description"] = doc_params[pname]
            if isinstance(default, FieldInfo):
                info = copy.copy(default)
                info.alias = pname
                info.validation_alias = pname
                info.serialization_alias = pname
                if "description" in extra:
                    info.description = extra["description"]
                fields[field_name] = (hint, info)
            elif default is inspect.Parameter.empty:
                fields[field_name] = (hint, Field(..., **extra))
            else:
                fields[field_name] = (hint, Field(default, **extra))

        config = ConfigDict(extra="ignore", coerce_numbers_to_str=True, arbitrary_types_allowed=False)
        model_name = f"{self.name}_args"
        try:
            model = create_model(model_name, __config__=config, **fields)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.model_json_schema(by_alias=True)
        except Exception as exc:
            culprit = ""
            for field_name, spec in fields.items():
                try:
                    probe = create_model(model_name, __config__=config, **{field_name: spec})
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        probe.model_json_schema(by_alias=True)
                except Exception:
                    culprit = f" parameter '{aliases[field_name]}' ({spec[0]!r})"
                    break
            first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise TypeError(
                f"tool '{self.name}':{culprit or ' its parameters'} cannot be described as JSON schema: "
                f"{first_line}"
            ) from exc
        return model, aliases

    # -- public -------------------------------------------------------------------------------------

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

    def invoke(self, kwargs: dict[str, Any], cancel: threading.Event | None = None) -> Any:
        """Call the function with prepared keyword arguments (see :meth:`prepare`) in this thread."""
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


# --------------------------------------------------------------------------------------------------
# results


@dataclasses.dataclass
class ToolResult:
    """The outcome of one :meth:`ToolRegistry.dispatch`.

    - ``status``: ``ok`` | ``error`` | ``timeout`` | ``cancelled`` | ``denied``; ``ok`` is
      ``status == "ok"``.
    - ``content``: the text sent to the model as the ``role="tool"`` message, at most ``output_cap``
      characters (longer results end with ``[output truncated: N characters total]``).
    - ``full``: the whole text, uncapped (for the UI).
    - ``error``: the error text (same as ``content`` for failures, ``Error: …``), None on success.
    - ``duration_ms``: wall time of the dispatch in milliseconds.
    - ``arguments``: the decoded arguments (None when they could not be decoded).
    """

    name: str
    status: str
    content: str
    full: str
    error: str | None = None
    duration_ms: float = 0.0
    arguments: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def truncated(self) -> bool:
        return self.content != self.full

    @classmethod
    def failure(cls, name: str, message: str, *, status: str = "error", arguments: dict[str, Any] | None = None,
                duration_ms: float = 0.0, output_cap: int | None = DEFAULT_OUTPUT_CAP) -> ToolResult:
        """A failed result; ``message`` gets an ``Error: `` prefix if it has none."""
        message = clean_text(message)
        text = message if message.startswith("Error:") else f"Error: {message}"
        return cls(name=name, status=status, content=cap_text(text, output_cap), full=text, error=text,
                   duration_ms=duration_ms, arguments=arguments)


def cap_text(text: str, cap: int | None) -> str:
    """``text`` shortened to at most ``cap`` characters, ending with
    ``\\n[output truncated: 2,000,004 characters total]`` when it was cut (a huge tool output would
    overflow the model's context). None/0: no cap."""
    if not cap or len(text) <= cap:
        return text
    marker = f"\n[output truncated: {len(text):,} characters total]"
    return text[: max(0, cap - len(marker))] + marker


def _json_default(obj: Any) -> Any:
    if isinstance(obj, BaseModel):
        return obj.model_dump(mode="json")
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return dataclasses.asdict(obj)
    if isinstance(obj, (_dt.datetime, _dt.date, _dt.time)):
        return obj.isoformat()
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, (set, frozenset)):
        try:
            return sorted(obj)
        except TypeError:
            return list(obj)
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj).decode("utf-8", errors="replace")
    if isinstance(obj, PurePath):
        return str(obj)
    if isinstance(obj, Iterator):
        return list(obj)
    return str(obj)


def result_to_text(value: Any) -> str:
    """A tool's return value as text: ``str`` as is, anything else as JSON (``ensure_ascii=False``;
    pydantic models, dataclasses, dates, enums, sets handled; other objects via ``str``). Lone surrogates
    (e.g. a non-UTF-8 file name from ``os.listdir``) become U+FFFD so the text can be saved and sent."""
    if isinstance(value, str):
        return clean_text(value)
    return clean_text(json.dumps(value, ensure_ascii=False, default=_json_default))


def _describe_exception(exc: BaseException) -> str:
    if isinstance(exc, ToolError):
        return str(exc) or "the tool failed"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_validation_error(name: str, exc: ValidationError, max_errors: int = 5) -> str:
    """One readable line per problem, e.g. ``customer_id: Input should be a valid integer (got
    'forty-two')`` — no pydantic URLs."""
    parts = []
    errors = exc.errors(include_url=False)
    for err in errors[:max_errors]:
        loc = ".".join(str(p) for p in err.get("loc", ())) or "arguments"
        msg = err.get("msg", "invalid value")
        if err.get("type") == "missing":
            parts.append(f"{loc}: missing (required)")
        else:
            parts.append(f"{loc}: {msg} (got {_short(err.get('input'))})")
    if len(errors) > max_errors:
        parts.append(f"and {len(errors) - max_errors} more")
    return f"invalid arguments for tool '{name}': " + "; ".join(parts)


# --------------------------------------------------------------------------------------------------
# registry


class ToolRegistry:
    """The tools available to the agent, and the one place where they are run.

    ``timeout_s``: default per-call timeout in seconds (a tool's own ``timeout_s`` wins; None or 0: no
    timeout, only cancellation). ``output_cap``: maximum characters of ``ToolResult.content`` (None or
    0: no cap). ``approver(tool, arguments) -> bool`` is asked before running a tool with
    ``requires_approval``.
    """

    def __init__(self, timeout_s: float | None = DEFAULT_TIMEOUT_S, output_cap: int | None = DEFAULT_OUTPUT_CAP,
                 approver: Approver | None = None):
        self.timeout_s = timeout_s
        self.output_cap = output_cap
        self.approver = approver
        self._tools: dict[str, Tool] = {}
        self._lock = threading.Lock()

    # -- registration -------------------------------------------------------------------------------

    def register(self, fn_or_tool: Callable[..., Any] | Tool, *, source: str = "") -> Tool:
        """Add a tool (a :class:`Tool`, a function marked with :func:`tool`, or a plain function).

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

    def schemas(self) -> list[dict[str, Any]]:
        """The ``tools=`` payload, the same for Ollama and OpenAI (see :meth:`Tool.schema`)."""
        return [t.schema() for t in self]

    # -- dispatch -----------------------------------------------------------------------------------

    def dispatch(self, name: str, arguments: str | dict[str, Any] | None,
                 cancel: threading.Event | None = None) -> ToolResult:
        """Run tool ``name`` with ``arguments`` and return its :class:`ToolResult`. Never raises.

        ``arguments``: a JSON object as text (OpenAI), a dict (Ollama), or None/"" for none. Failures
        become results the model can read: unknown tool (lists the available ones), arguments
        that are not JSON (with the parse error), validation errors (the function is not
        called), exceptions (``Error: ValueError: …`` without traceback), timeout
        (``Error: tool 'x' timed out after 1 s``, status ``timeout``), ``cancel`` set while
        waiting (status ``cancelled``, returns within ~50 ms), approval refused (status ``denied``).
        """
        start = time.monotonic()

        def elapsed() -> float:
            return (time.monotonic() - start) * 1000.0

        def fail(message: str, status: str = "error", args: dict[str, Any] | None = None) -> ToolResult:
            return ToolResult.failure(name, message, status=status, arguments=args, duration_ms=elapsed(),
                                      output_cap=self.output_cap)

        try:
            found = self._tools.get(name) if isinstance(name, str) else None
            if found is None:
                available = ", ".join(self._tools) or "none"
                text = f"tool '{name}' does not exist. Available tools: {available}"
                close = difflib.get_close_matches(str(name), list(self._tools), n=1)
                if close:
                    text += f". Did you mean '{close[0]}'?"
                return fail(text)

            args, problem = _decode_arguments(arguments)
            if problem is not None:
                return fail(f"the arguments for tool '{name}' could not be read ({problem}); it was not run. "
                            "Send the arguments as one JSON object.")
            try:
                kwargs = found.prepare(args)
            except ValidationError as exc:
                return fail(format_validation_error(name, exc), args=args)

            if found.requires_approval:
                if self.approver is None:
                    return fail(f"tool '{name}' needs the user's approval and none could be asked; it was not run.",
                                "denied", args)
                try:
                    approved = bool(self.approver(found, dict(args)))
                except Exception as exc:
                    log.warning("approver failed for %s: %s", name, exc)
                    approved = False
                if not approved:
                    return fail(f"the user did not allow tool '{name}' to run.", "denied", args)

            if cancel is not None and cancel.is_set():
                return fail(f"tool '{name}' was cancelled by the user.", "cancelled", args)

            timeout = found.timeout_s if found.timeout_s is not None else self.timeout_s
            status, value = self._run(found, kwargs, timeout, cancel)
            if status == "timeout":
                return fail(ToolTimedOut(name, float(timeout or 0)).message, "timeout", args)
            if status == "cancelled":
                return fail(f"tool '{name}' was cancelled by the user.", "cancelled", args)
            if status == "error":
                return fail(_describe_exception(value), "error", args)
            try:
                text = result_to_text(value)
            except Exception as exc:
                return fail(f"tool '{name}' returned a value that cannot be sent as text "
                            f"({type(exc).__name__}: {exc})", "error", args)
            return ToolResult(name=name, status="ok", content=cap_text(text, self.output_cap), full=text,
                              error=None, duration_ms=elapsed(), arguments=args)
        except Exception as exc:  # a bug here must still not break the agent loop
            log.exception("dispatch of tool %r failed", name)
            return fail(f"internal error while running tool '{name}': {_describe_exception(exc)}")

    def _run(self, found: Tool, kwargs: dict[str, Any], timeout: float | None,
             cancel: threading.Event | None) -> tuple[str, Any]:
        """Run the tool in a daemon thread; wait for it, the timeout or ``cancel``.

        Returns ``("ok", value)``, ``("error", exception)``, ``("timeout", None)`` or
        ``("cancelled", None)``. On timeout or cancel the tool's own ``cancel`` event is set and the
        thread is abandoned (daemon: it never blocks the app's exit).
        """
        stop = threading.Event()  # what the tool sees as `cancel`

        def work() -> Any:
            try:
                return found.invoke(dict(kwargs), stop)
            except BaseException:  # SystemExit in a tool must not kill the worker: run_watched reports it
                log.info("tool %s raised", found.name, exc_info=True)
                raise

        status, value = run_watched(work, cancel, timeout_s=timeout, name=f"tool:{found.name}")
        if status == "cancelled":
            stop.set()
        elif status == "timeout":
            stop.set()
            log.warning("tool %s timed out after %s s; its thread is abandoned", found.name, timeout)
        return status, value


def _decode_arguments(arguments: Any) -> tuple[dict[str, Any], str | None]:
    """``(arguments as a dict, problem or None)`` from a JSON string, a dict, None or ""."""
    if isinstance(arguments, BaseModel):
        arguments = arguments.model_dump()
    return parse_tool_arguments(arguments)
