"""Asking on the terminal about a tool call the permission engine wants the user to decide: the tool, its
description and source, what it would do (the command line, a file write's diff, or the arguments), then
``Allow <tool>? [y]es once / [n]o / [a]lways / [c] for this chat:``. ``n`` may be followed by a reason for the
model (``n not on prod``). The prompt goes to stderr; the answer is read from the terminal (stdin). End of
input or Ctrl+C is a deny."""

from __future__ import annotations

from typing import TextIO

from desktop_agent.cli.output import Output, visible, write_line
from desktop_agent.core.tools.permissions import Answer, PermissionRequest
from desktop_agent.core.tools.preview import preview_call

CHOICES = {"y": "once", "yes": "once", "a": "always", "always": "always", "c": "chat", "chat": "chat",
           "n": "deny", "no": "deny"}
#: lines of a preview printed before it is cut
PREVIEW_LINES = 40


def describe(request: PermissionRequest, err: Output) -> None:
    """Print what the user is asked about (control characters escaped: see :func:`visible`)."""
    tool = request.tool
    kinds = [k for k, on in (("destructive", tool.destructive), ("read-only", tool.read_only)) if on]
    write_line(err, f"[approval] {tool.name} — {tool.description or 'no description'}")
    write_line(err, f"  from: {request.source}" + (f" ({', '.join(kinds)})" if kinds else ""))
    preview = preview_call(request.arguments)
    head = {"command": "command line", "diff": "changes", "json": "arguments"}[preview.kind]
    write_line(err, f"  {head}:" + (f" {visible(preview.note)}" if preview.note else ""))
    text = visible(("$ " if preview.kind == "command" else "") + preview.text.rstrip("\n"))
    lines = text.split("\n") or [""]
    for line in lines[:PREVIEW_LINES]:
        write_line(err, "    " + line)
    if len(lines) > PREVIEW_LINES:
        write_line(err, f"    … {len(lines) - PREVIEW_LINES} more lines")


def ask(request: PermissionRequest, err: Output, inp: TextIO) -> Answer:
    """Prompt until a valid answer (or end of input / Ctrl+C: deny). "always" and "for this chat" cover the
    request's first scope (for a destructive tool: its folder, command or host — never every call)."""
    describe(request, err)
    scope = request.scopes[0]
    while True:
        err.write(f"Allow {request.tool_name}? [y]es once / [n]o (a reason may follow) / [a]lways / "
                  f"[c] for this chat — a and c cover {scope.label(request.tool_name)}: ")
        try:
            line = inp.readline()
        except (KeyboardInterrupt, OSError, ValueError):
            write_line(err, "")
            return Answer("deny", reason="no answer (interrupted)")
        if not line:
            write_line(err, "")
            return Answer("deny", reason="no answer (end of input)")
        word, _, rest = line.strip().partition(" ")
        choice = CHOICES.get(word.lower())
        if choice is None:
            write_line(err, "  please answer y, n, a or c")
            continue
        if choice == "deny":
            return Answer("deny", reason=rest.strip() or None)
        return Answer(choice, scope if choice in ("chat", "always") else None)
