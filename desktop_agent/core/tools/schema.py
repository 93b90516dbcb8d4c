"""A tool function's parameters as JSON schema: the pydantic argument model built from its signature, and the
schema that model produces, cleaned for picky tool-calling servers (``$defs`` inlined, a recursive model spelled
out a few levels deep; no ``title``, ``Optional[X]`` as X, a top-level ``type`` on every property)."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import threading
import warnings
from collections.abc import Callable
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.fields import FieldInfo

# --------------------------------------------------------------------------------------------------
# the signature as a pydantic model


@dataclasses.dataclass(frozen=True)
class ArgumentModel:
    """A function's parameters as a pydantic model, and what calling the function needs besides it.

    - ``model``: validates the arguments (fields ``p0``, ``p1``… aliased to the parameter names).
    - ``aliases``: field name → parameter name.
    - ``positional``: the positional-only parameters, in order.
    - ``required_in_python``: the parameters without a default.
    - ``accepts_cancel``: the function takes ``cancel: threading.Event`` (not a field: the model never
      sees it).
    """

    model: type[BaseModel]
    aliases: dict[str, str]
    positional: list[str]
    required_in_python: set[str]
    accepts_cancel: bool


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


def build_argument_model(fn: Callable[..., Any], tool_name: str, doc_params: dict[str, str]) -> ArgumentModel:
    """The :class:`ArgumentModel` of ``fn`` (named ``tool_name`` in messages); ``doc_params`` are the
    docstring's parameter descriptions, used where the type hint gives none.

    Raises ``TypeError`` naming the tool (and the parameter when one can be blamed) when the signature or
    the type hints cannot be read, or a parameter's type cannot be expressed as JSON schema.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"tool '{tool_name}': cannot read its signature ({exc})") from exc
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception as exc:  # NameError for an unresolvable forward reference, …
        raise TypeError(f"tool '{tool_name}': cannot resolve its type hints ({type(exc).__name__}: {exc})") from exc

    accepts_cancel = False
    positional: list[str] = []
    required_in_python: set[str] = set()
    fields: dict[str, Any] = {}
    aliases: dict[str, str] = {}  # field name → parameter name
    for index, (pname, param) in enumerate(signature.parameters.items()):
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        hint = hints.get(pname, param.annotation)
        if _is_cancel_param(param, hint):
            accepts_cancel = True
            continue
        default = param.default
        if hint is inspect.Parameter.empty:
            # no type hint: the default's type if it has a simple one, else str
            hint = type(default) if isinstance(default, (bool, int, float, str)) else str
        if param.kind is inspect.Parameter.POSITIONAL_ONLY:
            positional.append(pname)
        if default is inspect.Parameter.empty:
            required_in_python.add(pname)
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
    model_name = f"{tool_name}_args"
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
            except Exception:  # noqa: BLE001 — any failure blames this parameter
                culprit = f" parameter '{aliases[field_name]}' ({spec[0]!r})"
                break
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise TypeError(
            f"tool '{tool_name}':{culprit or ' its parameters'} cannot be described as JSON schema: "
            f"{first_line}"
        ) from exc
    return ArgumentModel(model=model, aliases=aliases, positional=positional,
                         required_in_python=required_in_python, accepts_cancel=accepts_cancel)


def arguments_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The cleaned JSON schema of an argument model (see :func:`clean_schema`), by parameter name."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # non-serialisable defaults are simply left out
        raw = model.model_json_schema(by_alias=True)
    return clean_schema(raw)


# --------------------------------------------------------------------------------------------------
# the JSON schema, cleaned

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SCHEMA_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
               "unevaluatedProperties", "unevaluatedItems")


#: how many times one model (one ``$ref`` target) is spelled out inside itself before the nesting is cut
RECURSION_DEPTH = 3


def _ref_target(ref: str, root: dict[str, Any], defs: dict[str, Any]) -> tuple[str, Any] | None:
    """What a local ``$ref`` points at, and a name for it (a model's name): ``#/$defs/X``, ``#/definitions/X``,
    ``#`` (the whole schema) or any JSON pointer into it (as some MCP servers write them). None when it points
    nowhere (or outside this schema)."""
    if ref == "#":
        return str(root.get("title") or "object"), root
    if not ref.startswith("#/"):
        return None
    parts = [p.replace("~1", "/").replace("~0", "~") for p in ref[2:].split("/")]
    node: Any = root
    for part in parts:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            node = defs.get(parts[-1])  # a ``$defs`` name under another prefix
            break
    return (parts[-1], node) if isinstance(node, dict) else None


def _nested_further(name: str, target: Any) -> dict[str, Any]:
    """Where a recursive model's nesting is cut: a plain object that says what goes there."""
    fields = list(target.get("properties") or {}) if isinstance(target, dict) else []
    listed = f" ({', '.join(fields)})" if fields and all(isinstance(f, str) for f in fields) else ""
    text = f"Another {name}: an object with the same fields as the {name} above{listed}."
    return {"type": "object", "description": text}


def _resolve_refs(node: Any, root: dict[str, Any], defs: dict[str, Any], stack: tuple[str, ...] = ()) -> Any:
    """Replace every ``{"$ref": ..., ...siblings}`` by a copy of its target merged with the siblings.

    A recursive model (a tree: X refers to itself, or X → Y → X) is spelled out :data:`RECURSION_DEPTH`
    times inside itself; below that it is a plain object whose description names its fields
    (:func:`_nested_further`), so the model sees the recursive part and the schema stays small. A ``$ref``
    that points nowhere is a plain object.
    """
    if isinstance(node, list):
        return [_resolve_refs(v, root, defs, stack) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node and isinstance(node["$ref"], str):
        ref = node["$ref"]
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        found = _ref_target(ref, root, defs)
        if found is None:
            target: dict[str, Any] = {"type": "object"}
        elif stack.count(ref) >= RECURSION_DEPTH:
            target = _nested_further(*found)
        else:
            target = _resolve_refs(copy.deepcopy(found[1]), root, defs, (*stack, ref))
        merged = dict(target)
        merged.update(_resolve_refs(siblings, root, defs, stack))
        return merged
    out: dict[str, Any] = {}
    for k, v in node.items():
        if k in ("$defs", "definitions"):
            continue
        if k in _SCHEMA_MAPS and isinstance(v, dict):
            out[k] = {name: _resolve_refs(sub, root, defs, stack) for name, sub in v.items()}
        elif k in _SCHEMA_LISTS or k in _SCHEMA_ONE:
            out[k] = _resolve_refs(v, root, defs, stack)
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

    No ``$ref``/``$defs`` remain (inlined; a recursive model to a bounded depth, see :func:`_resolve_refs`), no
    ``title``, no ``anyOf`` with a null branch (the property takes the other branch's type), ``const`` becomes a
    one-value ``enum``. The top level always has ``"type": "object"`` and ``"properties"``; ``required`` only
    when non-empty.
    """
    defs = dict(schema.get("$defs", {}) or {})
    defs.update(schema.get("definitions", {}) or {})
    out = _clean(_resolve_refs(schema, schema, defs))
    out["type"] = "object"
    out.setdefault("properties", {})
    if not out.get("required"):
        out.pop("required", None)
    return out


def allows_string(schema: dict[str, Any]) -> bool:
    """Whether a property schema accepts a JSON string (unknown → True)."""
    kinds = schema.get("type")
    if kinds is None:
        branches = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(branches, list) and branches:
            return any(allows_string(b) for b in branches if isinstance(b, dict))
        if isinstance(schema.get("enum"), list):
            return any(isinstance(v, str) for v in schema["enum"])
        return True
    if isinstance(kinds, str):
        kinds = [kinds]
    return "string" in kinds
