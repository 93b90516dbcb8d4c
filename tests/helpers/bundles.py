"""MCP bundles (``.mcpb``) built in the test from the manifest spec (github.com/modelcontextprotocol/mcpb,
MANIFEST.md): a python bundle whose server is a tiny SDK stdio server, a node bundle whose server is a tiny
dependency-free node script, and helpers to make broken ones (bad manifest, zip-slip)."""

from __future__ import annotations

import json
import os
import sys
import zipfile
from pathlib import Path
from typing import Any

#: the python bundle's server: one tool, ``greet``, that says which user_config values it was given
PY_SERVER = '''
import os
from mcp.server.mcpserver import MCPServer

server = MCPServer("greeter")


@server.tool()
def greet(name: str = "friend") -> str:
    """Greet someone by name."""
    key = os.environ.get("GREETER_KEY", "")
    return f"{os.environ.get('GREETING', 'Hello')}, {name}! (key of {len(key)} characters, ends {key[-2:]})"


if __name__ == "__main__":
    server.run()
'''

#: the node bundle's server: MCP over stdio by hand (newline-delimited JSON-RPC), one tool ``shout``
NODE_SERVER = r'''
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
rl.on("line", (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch (e) { return; }
  if (msg.id === undefined) return;
  if (msg.method === "initialize") {
    send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: msg.params.protocolVersion,
      capabilities: { tools: {} }, serverInfo: { name: "shouter", version: "1.0.0" } } });
  } else if (msg.method === "tools/list") {
    send({ jsonrpc: "2.0", id: msg.id, result: { tools: [{ name: "shout", description: "Shout the text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] } });
  } else if (msg.method === "tools/call") {
    const text = String((msg.params.arguments || {}).text || "").toUpperCase();
    send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text",
      text: text + (process.env.SUFFIX || "") + " in " + process.argv.slice(2).join(",") }] } });
  } else {
    send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no such method" } });
  }
});
'''


def python_manifest(version: str = "1.0.0", **changes: Any) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "manifest_version": "0.3", "name": "greeter", "display_name": "Greeter", "version": version,
        "description": "Greets people by name.", "author": {"name": "Test Author", "url": "https://example.com"},
        "server": {"type": "python", "entry_point": "server/main.py",
                   "mcp_config": {"command": "python", "args": ["${__dirname}/server/main.py"],
                                  "env": {"GREETER_KEY": "${user_config.api_key}",
                                          "GREETING": "${user_config.greeting}"}}},
        "tools": [{"name": "greet", "description": "Greet someone by name"}],
        "compatibility": {"platforms": ["darwin", "win32", "linux"], "runtimes": {"python": ">=3.10"}},
        "user_config": {
            "api_key": {"type": "string", "title": "API key", "description": "Your greeter key",
                        "sensitive": True, "required": True},
            "greeting": {"type": "string", "title": "Greeting", "description": "How to greet",
                         "default": "Hello"},
        },
    }
    manifest.update(changes)
    return manifest


def node_manifest(**changes: Any) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "manifest_version": "0.3", "name": "shouter", "version": "0.2.0", "description": "Shouts.",
        "author": {"name": "Node Author"},
        "server": {"type": "node", "entry_point": "server/index.js",
                   "mcp_config": {"command": "node", "args": ["${__dirname}/server/index.js",
                                                              "${user_config.dirs}"],
                                  "env": {"SUFFIX": "${user_config.suffix}"}}},
        "tools": [{"name": "shout", "description": "Shout the text"}],
        "compatibility": {"runtimes": {"node": ">=16.0.0"}},
        "user_config": {
            "suffix": {"type": "string", "title": "Suffix", "description": "Added to every shout", "default": "!"},
            "dirs": {"type": "directory", "title": "Folders", "description": "Folders it may read",
                     "multiple": True, "default": ["${HOME}/a", "${HOME}/b"]},
        },
    }
    manifest.update(changes)
    return manifest


def build(path: Path, manifest: dict[str, Any] | str | None, files: dict[str, str | bytes]) -> Path:
    """A bundle at ``path`` holding ``manifest`` (a dict: as JSON; a str: as it is; None: none) and ``files``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        if manifest is not None:
            archive.writestr("manifest.json", manifest if isinstance(manifest, str) else json.dumps(manifest))
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def python_bundle(folder: Path, version: str = "1.0.0", **changes: Any) -> Path:
    return build(folder / f"greeter-{version}.mcpb", python_manifest(version, **changes),
                 {"server/main.py": PY_SERVER, "README.md": f"greeter {version}\n"})


def node_bundle(folder: Path, **changes: Any) -> Path:
    return build(folder / "shouter.mcpb", node_manifest(**changes), {"server/index.js": NODE_SERVER})


def python_on_path(folder: Path) -> str:
    """A PATH whose ``python`` is this test run's interpreter (which has the MCP SDK the bundle's server imports:
    a real bundle would carry it in ``server/lib``), ahead of the rest."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "python"  # a script, not a link: a link out of the venv's bin is not the venv's python
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
