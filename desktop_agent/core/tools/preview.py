"""What a tool call would do, as text the user reads before allowing it: a command's command line, a file
write's unified diff (against the file's current text, or between ``old`` and ``new`` arguments), else the
arguments as pretty JSON. Used by the window's approval card and the terminal's prompt."""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from typing import Any

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.tools.permissions import COMMAND_ARGUMENTS, PATH_ARGUMENTS

#: the largest file read to show a diff against (bytes); a bigger one shows the new content only
DIFF_MAX_BYTES = 1_000_000
#: argument pairs that carry a replacement (old text, new text)
OLD_NEW = (("old", "new"), ("old_text", "new_text"), ("old_string", "new_string"), ("old_str", "new_str"))
CONTENT_ARGUMENTS = ("content", "text", "new_content")


@dataclass(frozen=True)
class CallPreview:
    """``kind``: ``command`` (``text`` is the command line), ``diff`` (a unified diff), ``json`` (pretty
    arguments); ``arguments``: the arguments as pretty JSON (always); ``note``: a line such as "new file"."""

    kind: str
    text: str
    arguments: str
    note: str = ""


def pretty_arguments(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, indent=2, ensure_ascii=False, default=str) if arguments else "{}"


def _first(arguments: dict[str, Any], names: tuple[str, ...]) -> tuple[str, str] | None:
    for name in names:
        value = arguments.get(name)
        if isinstance(value, str):
            return name, value
    return None


def _target(text: str) -> str:
    """The file a path argument names, as the file tools resolve it: a relative path is under the first allowed
    folder (:func:`desktop_agent.toolkit.allowed_path`), not the app's working directory."""
    given = os.path.expanduser(text.strip())
    if os.path.isabs(given):
        return os.path.realpath(given)
    from desktop_agent.toolkit import allowed_folders

    roots = allowed_folders()
    return os.path.realpath(os.path.join(roots[0], given)) if roots else given


def _read(path: str) -> str | None:
    """The file's text, or None when it does not exist, is not a file, too big or not text."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > DIFF_MAX_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _diff(old: str, new: str, name: str) -> str:
    lines = difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                 fromfile=f"a/{name}", tofile=f"b/{name}")
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return text or "(no change)\n"


def preview_call(arguments: dict[str, Any]) -> CallPreview:
    """The preview of a call with ``arguments`` (see the module docstring). Reads the target file (at most
    :data:`DIFF_MAX_BYTES`); call it off the GUI thread for large files."""
    pretty = pretty_arguments(arguments)
    command = _first(arguments, COMMAND_ARGUMENTS)
    if command is not None:
        return CallPreview("command", command[1], pretty)
    path = _first(arguments, PATH_ARGUMENTS)
    name = os.path.basename(path[1]) if path else "text"
    for old_name, new_name in OLD_NEW:
        old, new = arguments.get(old_name), arguments.get(new_name)
        if isinstance(old, str) and isinstance(new, str):
            return CallPreview("diff", _diff(old, new, name), pretty)
    content = _first(arguments, CONTENT_ARGUMENTS)
    if path is not None and content is not None:
        target = _target(path[1])
        current = _read(target)
        if current is not None:
            return CallPreview("diff", _diff(current, content[1], name), pretty, QT_TRANSLATE_NOOP("Preview",
                    "changes to {target}").format(target=target))
        if os.path.exists(target):
            return CallPreview("json", pretty, pretty, QT_TRANSLATE_NOOP(
                "Preview", "replaces {target} (not shown: not a small text file)").format(target=target))
        return CallPreview("diff", _diff("", content[1], name), pretty, QT_TRANSLATE_NOOP("Preview",
                "new file {target}").format(target=target))
    return CallPreview("json", pretty, pretty)
