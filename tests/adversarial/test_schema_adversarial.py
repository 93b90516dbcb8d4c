"""Adversarial variants of the tool-schema shared cases: parameter types whose pydantic schema has no
top-level ``type`` (the strict-server rule of case 31), defaults that are not JSON, and the arguments
still validate and call the function."""

from __future__ import annotations

import decimal
import json
import math
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from desktop_agent.core.tools.definition import Tool
from desktop_agent.core.tools.registry import ToolRegistry


class Inner(BaseModel):
    a: int


def union_simple(x: int | str) -> str:
    """Union of simple types."""
    return repr(x)


def union_model(x: Inner | str) -> str:
    """Union of a model and a string."""
    return repr(x)


def money(amount: decimal.Decimal) -> str:
    """A decimal amount."""
    return str(amount)


def mixed_literal(x: Literal["a", 1]) -> str:
    """A literal mixing a string and a number."""
    return repr(x)


def list_of_unions(xs: list[int | str]) -> str:
    """A list of ints or strings."""
    return repr(xs)


def untyped_props(schema: dict[str, Any], path: str = "parameters") -> list[str]:
    """Where a (nested) property or item schema lacks a top-level "type" (case 31's strict rule)."""
    bad = []
    for name, prop in (schema.get("properties") or {}).items():
        where = f"{path}.{name}"
        if "type" not in prop:
            bad.append(where)
        bad += untyped_props(prop, where)
        items = prop.get("items")
        if isinstance(items, dict):
            if "type" not in items:
                bad.append(where + "[]")
            bad += untyped_props(items, where + "[]")
    return bad


@pytest.mark.parametrize("fn", [union_simple, union_model, money, mixed_literal, list_of_unions])
def test_case31_kind_every_property_has_a_top_level_type(fn):
    """Shared case 31-schema-optional-default-none.json, same kind: a union WITHOUT None
    (`int | str`, `Inner | str`, Decimal = number|string, a mixed Literal, a list of unions) is also
    emitted by pydantic without a top-level "type", which makes a strict server (Gemini's
    OpenAI-compatible endpoint) reject the whole tools list. Every property and item has a type."""
    t = Tool(fn)
    assert untyped_props(t.parameters) == [], json.dumps(t.parameters)
    assert "$ref" not in json.dumps(t.parameters)


def test_case31_kind_unions_still_validate():
    """The folded schemas change nothing at call time: each branch of the union is accepted."""
    reg = ToolRegistry()
    for fn in (union_simple, union_model, money, mixed_literal):
        reg.register(fn)
    assert reg.dispatch("union_simple", {"x": 3}).content == "3"
    assert reg.dispatch("union_simple", {"x": "three"}).content == "'three'"
    assert reg.dispatch("union_model", {"x": {"a": 1}}).content == "Inner(a=1)"
    assert reg.dispatch("union_model", {"x": "plain"}).content == "'plain'"
    assert reg.dispatch("money", {"amount": "1.25"}).content == "1.25"
    assert reg.dispatch("mixed_literal", {"x": 1}).content == "1"


def test_non_finite_default_does_not_make_the_tools_payload_invalid_json():
    """A default of float('inf') / nan would be written as `Infinity` / `NaN`, which is not JSON:
    every request carrying the tools list would be refused (Ollama's Go decoder, strict servers).
    The schema must be strict JSON; the default still applies at call time."""

    def search(query: str, max_distance: float = math.inf, weight: float = math.nan) -> str:
        """Search within a distance."""
        return f"{query} {max_distance} {weight}"

    t = Tool(search)
    json.dumps(t.schema(), allow_nan=False)
    reg = ToolRegistry()
    reg.register(search)
    assert reg.dispatch("search", {"query": "x"}).content == "x inf nan"
