"""Helpers for tool authors: the folders the user allows tools to work in, and paths checked against them.

A tool that touches the user's files asks here instead of trusting the model's path::

    from desktop_agent import tool
    from desktop_agent.toolkit import allowed_path

    @tool(destructive=True)
    def touch(path: str) -> str:
        \"\"\"Create an empty file.\"\"\"
        target = allowed_path(path)          # raises ToolError outside the allowed folders
        target.touch()
        return str(target)

Where the folders come from: the user lists them in Settings → Tools ("Folders tools may use", the setting
``tools.allowed_folders``; none by default). They are read from the saved settings at each call, so a folder
added in Settings is usable at the next tool call — in the app's process or any other one. The environment
variable ``DESKTOP_AGENT_ALLOWED_FOLDERS`` (folders separated by ``os.pathsep``, ``:`` on Linux), when set,
replaces the saved list: for scripts, tests, and a process that runs tools for the app.

Nothing here imports Qt; importing it costs the settings module (pydantic) on first use only.
"""

from __future__ import annotations

import os
from pathlib import Path

from desktop_agent.core.tools.decorator import ToolError

#: the environment variable that, when set, replaces the saved allowed folders (``os.pathsep``-separated)
ALLOWED_FOLDERS_ENV = "DESKTOP_AGENT_ALLOWED_FOLDERS"

#: what a tool answers while the user has allowed no folder (the model passes it on)
NO_FOLDER_MESSAGE = (
    "no folder is allowed for file and command tools yet. Ask the user to add one in Settings → Tools → "
    "'Folders tools may use', then try again."
)


class NoAllowedFolder(ToolError):
    """The user has not allowed any folder yet (see :data:`NO_FOLDER_MESSAGE`)."""

    def __init__(self) -> None:
        super().__init__(NO_FOLDER_MESSAGE)


class OutsideAllowedFolders(ToolError):
    """A path that leads outside every allowed folder (after ``..`` and symbolic links are resolved)."""


def allowed_folders() -> list[Path]:
    """The folders tools may use, each resolved (absolute, symbolic links followed), in the user's order.

    From ``DESKTOP_AGENT_ALLOWED_FOLDERS`` when that variable is set, else from the saved settings
    (``tools.allowed_folders``); folders that do not exist are left out. Empty when none is allowed.
    """
    env = os.environ.get(ALLOWED_FOLDERS_ENV)
    if env is not None:
        listed = [part for part in env.split(os.pathsep) if part.strip()]
    else:
        from desktop_agent.core.settings import read_saved

        listed = list(read_saved().tools.allowed_folders)
    out: list[Path] = []
    for folder in listed:
        try:
            resolved = Path(folder).expanduser().resolve()
        except (OSError, RuntimeError):  # a symlink loop
            continue
        if resolved.is_dir() and resolved not in out:
            out.append(resolved)
    return out


def allowed_path(path: str | os.PathLike[str], *, folders: list[Path] | None = None) -> Path:
    """``path`` resolved and checked: the absolute path, with ``..`` and every symbolic link resolved, that
    lies inside one of the allowed folders (``folders``, default :func:`allowed_folders`).

    A relative path is taken relative to the first allowed folder; ``~`` is the home folder. The path need
    not exist (a file about to be written). Raises :class:`NoAllowedFolder` when no folder is allowed and
    :class:`OutsideAllowedFolders` (a :class:`ToolError` naming the allowed folders) when the path leads
    elsewhere — also through a symbolic link inside an allowed folder that points out of it.
    """
    roots = allowed_folders() if folders is None else folders
    if not roots:
        raise NoAllowedFolder()
    text = os.fspath(path)
    if "\0" in text:
        raise ToolError("the path contains a NUL character")
    given = Path(text.strip() or ".").expanduser()
    if not given.is_absolute():
        given = roots[0] / given
    try:
        resolved = given.resolve()
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise ToolError(f"the path {text!r} cannot be resolved ({exc})") from None
    for root in roots:
        if resolved == root or resolved.is_relative_to(root):
            return resolved
    shown = ", ".join(str(r) for r in roots)
    raise OutsideAllowedFolders(
        f"{text!r} is outside the folders tools may use ({shown}); it was not touched. "
        "The user can allow another folder in Settings → Tools."
    )
