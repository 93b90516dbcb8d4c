"""Every platformdirs call lives here.

An override (``--data-dir`` on the command line, or ``DESKTOP_AGENT_HOME`` in the environment) puts
config, data, cache and logs under one folder: ``<home>/config``, ``<home>/data``, ``<home>/cache``,
``<home>/log``. Tests point ``XDG_*_HOME`` or the override at a temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "desktop-agent"
#: the chat history's file in the data folder
STORE_NAME = "conversations.sqlite3"
_override: Path | None = None


def set_home(path: str | os.PathLike[str] | None) -> None:
    """Put every folder of the app under ``path`` (None: back to the platform folders)."""
    global _override
    _override = Path(path).expanduser().resolve() if path else None


def home_override() -> Path | None:
    """The folder every folder of the app is under (``--data-dir`` / ``DESKTOP_AGENT_HOME``), None if not set."""
    return _home()


def _home() -> Path | None:
    if _override is not None:
        return _override
    # no --data-dir set: DESKTOP_AGENT_HOME, read where the environment is read (a process that opened no
    # Services yet: the window's first frame, the tool host child)
    from desktop_agent.core.environment import current_env

    env = current_env().home
    return Path(env).expanduser() if env else None


def _dir(kind: str) -> Path:
    path = planned_dir(kind)
    if not path.is_dir():
        # chats, settings and logs are private: the app's own folders are created for the user only
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def planned_dir(kind: str) -> Path:
    """Where the app's ``kind`` folder (config, data, cache, log) is, without creating it (it may not exist)."""
    home = _home()
    if home is not None:
        path = home / kind
    else:
        import platformdirs

        getter = {
            "config": platformdirs.user_config_dir,
            "data": platformdirs.user_data_dir,
            "cache": platformdirs.user_cache_dir,
            "log": platformdirs.user_log_dir,
        }[kind]
        path = Path(getter(APP_NAME, appauthor=False))
    return path


def config_dir() -> Path:
    return _dir("config")


def data_dir() -> Path:
    return _dir("data")


def cache_dir() -> Path:
    return _dir("cache")


def log_dir() -> Path:
    return _dir("log")


def settings_file() -> Path:
    return config_dir() / "settings.json"


def store_file() -> Path:
    return data_dir() / STORE_NAME


def user_tools_dir() -> Path:
    """Where users drop their own tool modules (``~/.local/share/desktop-agent/tools`` on Linux)."""
    path = data_dir() / "tools"
    path.mkdir(parents=True, exist_ok=True)
    return path


def log_file() -> Path:
    return log_dir() / "desktop-agent.log"
