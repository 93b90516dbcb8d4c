"""``desktop-agent history …``: saved chats from the terminal.

::

    desktop-agent history list [--limit N] [--offset N] [--json]
    desktop-agent history search TEXT… [--limit N] [--json]
    desktop-agent history show ID
    desktop-agent history export ID [--format md|json] [-o FILE]
    desktop-agent history import FILE

``ID`` may be any unique prefix of a chat id (``list`` shows the first 8 characters). Exit status:
0 on success, 1 with a one-line reason on stderr (``desktop-agent: …``: unknown id, file that can't
be imported…), 2 for bad usage (the sub-command's usage, then ``desktop-agent history …: error: …``).
Store warnings (e.g. a damaged database that was moved aside) go to stderr as
``desktop-agent: warning: …``.

Wiring (in ``app.py``)::

    sub = parser.add_subparsers(dest="command")
    add_history_parser(sub)
    ...
    if args.command == "history":
        return run_history(args)
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from datetime import datetime
from typing import TextIO

__all__ = ["add_history_parser", "run_history"]

SHORT_ID = 8


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def add_history_parser(subparsers: argparse._SubParsersAction,
                       parents: list[argparse.ArgumentParser] = ()) -> argparse.ArgumentParser:
    """Add the ``history`` sub-command (with list/search/show/export/import) to ``subparsers``.
    ``parents``: parsers whose options every level accepts (``--data-dir``)."""
    parents = list(parents)
    parser = subparsers.add_parser(
        "history",
        help="list, search, show, export and import saved chats",
        description="Saved chats: list, search, show, export and import. ID may be a unique prefix of a chat id.",
        parents=parents,
    )
    sub = parser.add_subparsers(dest="history_command", metavar="{list,search,show,export,import}")

    p = sub.add_parser("list", help="saved chats, most recent first", parents=parents)
    p.add_argument("--limit", type=_positive_int, default=50, help="how many chats (default 50)")
    p.add_argument("--offset", type=_non_negative_int, default=0, help="skip this many chats first")
    p.add_argument("--json", action="store_true", help="print JSON (full ids, epoch-second times)")

    p = sub.add_parser("search", help="full-text search over every message of every chat", parents=parents)
    p.add_argument("text", nargs="+", help='words that must all appear; "quote" a phrase')
    p.add_argument("--limit", type=_positive_int, default=50, help="how many messages (default 50)")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("show", help="print a chat as Markdown", parents=parents)
    p.add_argument("id", metavar="ID")

    p = sub.add_parser("export", help="export a chat to Markdown or JSON", parents=parents)
    p.add_argument("id", metavar="ID")
    p.add_argument("--format", choices=("md", "json"), default="md", help="md (default) or json")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (replaced atomically) instead of stdout")

    p = sub.add_parser(
        "import",
        help='import a chat: a desktop-agent JSON export, or a JSON list of {"human": ..., "ai": ...} turns',
        parents=parents,
    )
    p.add_argument("file", metavar="FILE")

    for name, child in sub.choices.items():
        child.set_defaults(_parser=child)
    parser.set_defaults(_history_parser=parser, _parser=parser)
    return parser


def _write(stream: TextIO, text: str) -> None:
    """Write text; characters the terminal's encoding lacks become '?' instead of an error."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        enc = getattr(stream, "encoding", None) or "ascii"
        stream.write(text.encode(enc, "replace").decode(enc, "replace"))


def _when(ts: float) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _fail(message: str) -> int:
    _write(sys.stderr, "desktop-agent: " + " ".join(str(message).split()) + "\n")
    return 1


def run_history(args: argparse.Namespace, store=None) -> int:
    """Run ``history <command>`` from parsed ``args``; returns the exit status (0, 1 or 2).

    ``store``: a :class:`~desktop_agent.core.store.ConversationStore` to use (default: open the one at
    ``paths.store_file()``, honouring ``--data-dir``/``DESKTOP_AGENT_HOME``, and close it after).
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
    from desktop_agent.core.store import ConversationStore

    own = store is None
    try:
        if own:
            store = ConversationStore()
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
        if own and store is not None:
            store.close()


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
            f"{r.message_count:>5}  {_cut(r.title, 70)}"
        )
    total = store.count()
    shown_to = args.offset + len(rows)
    if shown_to < total:
        lines.append(f"({shown_to} of {total} chats; --offset {shown_to} for more)")
    _write(sys.stdout, "\n".join(lines) + "\n")
    return 0


def _search(store, args) -> int:
    text = " ".join(args.text)
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
        lines.append(f"{h.conversation_id[:SHORT_ID]}  #{h.message_id}  {_when(h.created_at)}  {h.role:<9}  {_cut(h.title, 60)}")
        lines.append(f"    {h.snippet}")
    _write(sys.stdout, "\n".join(lines) + "\n")
    return 0


def _show(store, args) -> int:
    _write(sys.stdout, store.export(store.resolve(args.id), "md"))
    return 0


def _export(store, args) -> int:
    from desktop_agent.core.store.chatfiles import atomic_write_text

    cid = store.resolve(args.id)
    text = store.export(cid, args.format)
    if args.output and args.output != "-":
        atomic_write_text(args.output, text)
        _write(sys.stderr, f"Exported chat {cid[:SHORT_ID]} to {args.output}\n")
    else:
        _write(sys.stdout, text)
    return 0


def _import(store, args) -> int:
    cid = store.import_file(args.file)
    s = store.summary(cid)
    _write(sys.stdout, f"Imported {args.file} as chat {cid[:SHORT_ID]}: {s.title} ({s.message_count} messages)\n")
    return 0


_COMMANDS = {"list": _list, "search": _search, "show": _show, "export": _export, "import": _import}
