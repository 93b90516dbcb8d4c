"""``desktop-agent history …``: saved chats from the terminal.

::

    desktop-agent history list [--limit N] [--offset N] [--json]
    desktop-agent history search TEXT… [--limit N] [--json]
    desktop-agent history show ID [--tools]
    desktop-agent history export ID… | --all [--format md|json|html] [-o FILE]
    desktop-agent history import FILE [--dry-run]

``ID`` may be any unique prefix of a chat id (``list`` shows the first 8 characters). Exit status:
0 on success, 1 with a one-line reason on stderr (``desktop-agent: …``: unknown id, file that can't
be imported…), 2 for bad usage (the sub-command's usage, then ``desktop-agent history …: error: …``).
Store warnings (e.g. a damaged database that was moved aside) go to stderr as
``desktop-agent: warning: …``.

The parser is :func:`desktop_agent.cli.parser.add_history_parser`; ``app.py`` calls :func:`run_history`
with what it parsed.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from typing import TextIO

from desktop_agent.cli.output import Output, visible
from desktop_agent.core.epoch import format_epoch

__all__ = ["run_history"]

SHORT_ID = 8


def _write(stream: TextIO, text: str) -> None:
    """Write text; characters the terminal's encoding lacks become '?' instead of an error. On a terminal,
    control characters (in a saved answer or tool result) are shown as escapes, not obeyed."""
    if Output(stream).isatty():
        text = visible(text)
    try:
        stream.write(text)
    except UnicodeEncodeError:
        enc = getattr(stream, "encoding", None) or "ascii"
        stream.write(text.encode(enc, "replace").decode(enc, "replace"))


def _when(ts: float) -> str:
    return format_epoch(ts)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _fail(message: str) -> int:
    _write(sys.stderr, "desktop-agent: " + " ".join(str(message).split()) + "\n")
    return 1


def run_history(args: argparse.Namespace, store=None) -> int:
    """Run ``history <command>`` from parsed ``args``; returns the exit status (0, 1 or 2).

    ``store``: a :class:`~desktop_agent.core.store.ConversationStore` to use (default: the one of
    :class:`~desktop_agent.core.services.Services` — honouring ``--data-dir``/``DESKTOP_AGENT_HOME`` — closed after).
    """
    command = getattr(args, "history_command", None)
    if command is None:
        parser = getattr(args, "_history_parser", None)
        if parser is not None:
            parser.print_usage(sys.stderr)
        prog = parser.prog if parser is not None else "desktop-agent history"
        _write(sys.stderr, f"{prog}: error: choose one of: list, search, show, export, import\n")
        return 2

    from desktop_agent.core.errors import StoreError
    from desktop_agent.core.services import Services

    services = Services(data_dir=getattr(args, "data_dir", None)) if store is None else None
    try:
        if services is not None:
            store = services.store
        for warning in store.warnings:
            _write(sys.stderr, "desktop-agent: warning: " + warning + "\n")
        code = _COMMANDS[command](store, args)
        sys.stdout.flush()  # a full disk must fail here, not in Python's flush at exit
        return code
    except StoreError as exc:
        return _fail(str(exc))
    except OSError as exc:
        if exc.filename is None:  # stdout: the reader went away (`… | head`), or a full disk
            _drop_stdout()
            if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
                return 0  # stop quietly
            return _fail(f"can't write to stdout: {exc.strerror or exc}")
        return _fail(f"can't write {exc.filename}: {exc.strerror or exc}")
    finally:
        if services is not None:
            services.close()


def _drop_stdout() -> None:
    """Point stdout at /dev/null (and drop its buffer) so that Python's flush at exit cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.stdout.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _list(store, args) -> int:
    rows = store.list(limit=args.limit, offset=args.offset)
    if args.json:
        _write(sys.stdout, json.dumps([r.__dict__ for r in rows], ensure_ascii=False, indent=2) + "\n")
        return 0
    if not rows:
        _write(sys.stdout, "No saved chats.\n" if args.offset == 0 else "No more chats.\n")
        return 0
    width = max(5, max(len(r.model or "") for r in rows))
    lines = [f"{'ID':<{SHORT_ID}}  {'UPDATED':<16}  {'MODEL':<{width}}  {'MSGS':>5}  TITLE"]
    for r in rows:
        lines.append(
            f"{r.id[:SHORT_ID]:<{SHORT_ID}}  {_when(r.updated_at)}  {(r.model or '-'):<{width}}  "
            f"{r.message_count:>5}  {'[pinned] ' if r.pinned else ''}{_cut(r.title, 70)}"
            + "".join(f"  #{t}" for t in r.tags)
        )
    total = store.count()
    shown_to = args.offset + len(rows)
    if shown_to < total:
        lines.append(f"({shown_to:,} of {_plural(total, 'chat')}; --offset {shown_to} for more)")
    _write(sys.stdout, "\n".join(lines) + "\n")
    return 0


def _search(store, args) -> int:
    text = " ".join(args.text)
    if not text.strip():
        _write(sys.stderr, "desktop-agent history search: error: give the words to search for\n")
        return 2
    hits = store.search(text, limit=args.limit)
    if args.json:
        data = [
            {
                "conversation_id": h.conversation_id,
                "message_id": h.message_id,
                "title": h.title,
                "role": h.role,
                "created_at": h.created_at,
                "model": h.model,
                "snippet": h.snippet,
            }
            for h in hits
        ]
        _write(sys.stdout, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not hits:
        _write(sys.stdout, f"No message contains {text!r}.\n")
        return 0
    lines = []
    for h in hits:
        lines.append(f"{h.conversation_id[:SHORT_ID]}  #{h.message_id}  {_when(h.created_at)}  {h.role:<9}  "
                     f"{_cut(h.title, 60)}")
        lines.append(f"    {h.snippet}")
    _write(sys.stdout, "\n".join(lines) + "\n")
    return 0


def _show(store, args) -> int:
    cid = store.resolve(args.id)
    if getattr(args, "tools", False):
        return _show_tools(store, cid)
    _write(sys.stdout, store.export(cid, "md"))
    failure = store.load(cid).last_failure
    if failure is not None:  # as the window shows it when the chat is opened: the turn did not get an answer
        _write(sys.stdout, f"\n> **The last turn failed** ({_when(failure.failed_at)}): {failure.text}\n"
                           f"> Continue it with `desktop-agent chat --chat {cid[:SHORT_ID]}`.\n")
    return 0


def _show_tools(store, cid: str) -> int:
    """The chat's tool call audit, one call per line: time, tool, status, duration, decision, arguments."""
    from desktop_agent.core.store.toolcalls import ToolAudit

    calls = ToolAudit(store).calls(cid)
    if not calls:
        _write(sys.stdout, f"No tool calls in chat {cid[:SHORT_ID]}.\n")
        return 0
    width = max(4, max(len(c.tool) for c in calls))
    lines = [f"{'TIME':<19}  {'TOOL':<{width}}  {'STATUS':<9}  {'DURATION':>9}  DECISION — ARGUMENTS"]
    for c in calls:
        when = format_epoch(c.started_at, "%Y-%m-%d %H:%M:%S")
        took = f"{c.duration_ms:.0f} ms" if c.duration_ms is not None else "-"
        args = json.dumps(c.arguments, ensure_ascii=False, default=str)
        lines.append(f"{when:<19}  {c.tool:<{width}}  {c.status:<9}  {took:>9}  "
                     f"{c.decision_text()} — {_cut(args, 200)}")
    _write(sys.stdout, "\n".join(lines) + "\n")
    return 0


def _export(store, args) -> int:
    from desktop_agent.core.store.chatfiles import atomic_write_text

    if bool(args.id) == bool(args.all):
        _write(sys.stderr, "desktop-agent history export: error: give chat ids or --all (not both)\n")
        return 2
    ids = None if args.all else [store.resolve(ref) for ref in args.id]
    if ids is None and store.count() == 0:
        return _fail("there are no saved chats to export")
    text = store.export_chats(ids, args.format)
    count = len(dict.fromkeys(ids)) if ids is not None else store.count()
    what = f"chat {ids[0][:SHORT_ID]}" if ids is not None and count == 1 else _plural(count, "chat")
    if args.output and args.output != "-":
        atomic_write_text(args.output, text)
        _write(sys.stderr, f"Exported {what} to {args.output}\n")
    else:
        _write(sys.stdout, text)
    return 0


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _import(store, args) -> int:
    plan = store.read_import_file(args.file)
    p = store.preview_import(plan)
    _write(sys.stdout, f"{args.file}: {_plural(p.chats, 'chat')}, {_plural(p.messages, 'message')} from "
                       f"{p.app_name}.\n")
    if args.dry_run:
        _write(sys.stdout, f"Would add {_plural(p.new_chats, 'new chat')} and {_plural(p.new_messages, 'message')} "
                           f"in all ({_plural(p.updated_chats, 'chat')} imported before "
                           f"{'gets' if p.updated_chats == 1 else 'get'} new messages).\n")
        return 0
    r = store.import_plan(plan)
    if not r.new_messages:
        _write(sys.stdout, "Nothing new: every chat and message of it is already in your history.\n")
        return 0
    line = f"Imported {_plural(r.new_chats, 'new chat')}"
    if r.updated_chats:
        line += f"; {_plural(r.updated_chats, 'chat')} imported before got new messages"
    line += f" ({_plural(r.new_messages, 'message')} added)."
    if len(r.chat_ids) == 1:
        s = store.summary(r.chat_ids[0])
        line += f" Chat {s.id[:SHORT_ID]}: {s.title}"
    _write(sys.stdout, line + "\n")
    return 0


_COMMANDS = {"list": _list, "search": _search, "show": _show, "export": _export, "import": _import}
