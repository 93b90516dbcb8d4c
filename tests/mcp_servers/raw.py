"""A hand-written MCP server over stdio (plain JSON-RPC lines, no SDK), to misbehave where an SDK server cannot:
``python -m tests.mcp_servers.raw MODE`` with MODE

- ``hang-list``: answers the handshake, never answers ``tools/list``;
- ``bad-schemas``: lists tools whose schemas are broken in the ways servers break them (no ``type``, a ``$ref``
  into its own properties, nested ``$defs``, a schema that is not an object, no name) next to a good one;
  ``tools/call`` of any tool answers its name and arguments;
- ``storm``: its tool ``storm`` sends 50 ``notifications/tools/list_changed`` at once and adds the tool ``added``;
  its tool ``count`` answers how many times its tools were listed.
"""

from __future__ import annotations

import json
import sys
import time

GOOD = {"name": "good", "description": "A good tool", "inputSchema": {
    "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
BAD_SCHEMAS = [
    GOOD,
    {"name": "no_type", "description": "Its schema has no type", "inputSchema": {
        "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    {"name": "own_ref", "description": "A $ref into its own properties", "inputSchema": {
        "type": "object", "properties": {
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            "fallback_unit": {"$ref": "#/properties/unit"}}}},
    {"name": "nested_defs", "description": "Nested $defs", "inputSchema": {
        "type": "object", "properties": {"where": {"$ref": "#/$defs/Place"}},
        "$defs": {"Place": {"type": "object", "properties": {"point": {"$ref": "#/$defs/Place/$defs/Point"}},
                            "$defs": {"Point": {"type": "object", "properties": {
                                "lat": {"type": "number"}, "lon": {"type": "number"}}, "required": ["lat", "lon"]}}}}}},
    {"name": "not_an_object", "description": "Its schema is a string", "inputSchema": "city: string"},
    {"description": "It has no name", "inputSchema": {"type": "object"}},
]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


STORM = [GOOD, {"name": "storm", "description": "Sends a storm of list changes", "inputSchema": {"type": "object"}},
         {"name": "count", "description": "How many times the tools were listed", "inputSchema": {"type": "object"}}]
ADDED = {"name": "added", "description": "Added by the storm", "inputSchema": {"type": "object"}}


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "hang-list"
    listed, tools = 0, list(STORM if mode == "storm" else BAD_SCHEMAS)
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            continue  # a notification
        if method == "initialize":
            version = (message.get("params") or {}).get("protocolVersion") or "2025-11-25"
            send({"jsonrpc": "2.0", "id": ident, "result": {
                "protocolVersion": version, "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": f"raw-{mode}", "version": "1.0"}}})
        elif method == "tools/list":
            if mode == "hang-list":
                print("raw: listing my tools takes a while…", file=sys.stderr, flush=True)
                time.sleep(3600)
            listed += 1
            send({"jsonrpc": "2.0", "id": ident, "result": {"tools": tools}})
        elif method == "tools/call":
            params = message.get("params") or {}
            text = f"{params.get('name')} called with {json.dumps(params.get('arguments') or {}, sort_keys=True)}"
            if params.get("name") == "storm":
                tools.append(ADDED)
                for _ in range(50):
                    send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            elif params.get("name") == "count":
                text = str(listed)
            send({"jsonrpc": "2.0", "id": ident, "result": {"content": [{"type": "text", "text": text}]}})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": ident, "result": {}})
        else:
            send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
