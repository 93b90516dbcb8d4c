"""An MCP server's tool schema as the backends get it (core/mcp/tools.py McpTool / usable_schema): a malformed
schema (non-object, ``properties`` a list, ``required`` naming nothing, ``$ref`` loops) becomes an object schema
every backend takes, so one bad server cannot make every request with tools fail
(/work/shared/cases/30-schema-nested-model-defs-ref.json's kind: schemas the backend rejects)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from desktop_agent.core.mcp.tools import McpTool


def _tool(schema):
    info = SimpleNamespace(name="t", description="d", input_schema=schema, annotations=None)
    return McpTool(None, "srv", info, "srv__t")  # type: ignore[arg-type]


@pytest.mark.parametrize("schema", [
    {"type": "string"}, {"type": "object", "properties": [1, 2]}, {"properties": {"a": 5}},
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b", 3]},
    {"type": "object", "required": "a"}, {"$ref": "#/$defs/X", "$defs": {"X": {"$ref": "#/$defs/X"}}},
    {"type": "object", "properties": {"n": {"$ref": "#/$defs/N"}},
     "$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}},
])
def test_a_malformed_schema_is_an_object_schema_every_backend_takes(schema):
    params = _tool(schema).parameters
    assert params["type"] == "object"
    assert isinstance(params["properties"], dict)
    assert all(isinstance(v, dict) for v in params["properties"].values())
    required = params.get("required", [])
    assert isinstance(required, list) and set(required) <= set(params["properties"])
    assert "$ref" not in str(params) and "$defs" not in str(params)


def test_a_good_schema_is_kept():
    schema = {"type": "object", "properties": {"a": {"type": "string", "description": "x"}}, "required": ["a"]}
    assert _tool(schema).parameters == schema


def test_a_recursive_schema_keeps_its_recursive_part_whatever_its_refs_look_like():
    """A tree as MCP servers write it: through ``$defs``, through ``#`` (the whole schema, as zod-to-json-schema
    does) or a JSON pointer into it: the recursive property is spelled out (to a bound), not a bare object."""
    by_defs = {"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": {
        "type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {
            "$ref": "#/$defs/Node"}}}}}}
    by_root = {"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {
        "$ref": "#"}}}}
    by_pointer = {"type": "object", "properties": {"root": {"type": "object", "properties": {
        "name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/properties/root"}}}}}}
    for schema, top in ((by_defs, "root"), (by_root, None), (by_pointer, "root")):
        params = _tool(schema).parameters
        node = params["properties"][top] if top else params
        child = node["properties"]["kids"]["items"]
        assert set(child["properties"]) == {"name", "kids"}, schema
        assert "$ref" not in str(params)
