"""The environment variables the app uses, read in one place: :class:`AppEnv`, an immutable snapshot, and
:func:`current_env`. :mod:`.services` opens the app with one and hands the values down; this module sits below
every module that needs the snapshot when no ``Services`` handed one down (``paths``, ``secrets``, the probe),
so that none of them imports the composition root (no import circle: tests/unit/test_core_imports.py).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from types import ModuleType
from typing import NamedTuple

#: every environment variable that configures the app: :class:`AppEnv`'s field → the variable
VARIABLES: dict[str, str] = {
    "ollama_host": "OLLAMA_HOST",  # the Ollama server, over the saved host (as Ollama itself reads it)
    "openai_api_key": "OPENAI_API_KEY",  # a key for OpenAI-compatible servers, after the keyring's
    "home": "DESKTOP_AGENT_HOME",  # every folder of the app under one (as --data-dir)
    "theme": "DESKTOP_AGENT_THEME",  # the colour theme, over the saved one
    "ollama_api_key": "OLLAMA_API_KEY",  # hosted Ollama: sent by the probe as ollama.Client sends it
    "ssl_cert_file": "SSL_CERT_FILE",  # the certificates the probe trusts, as httpx does
    "ssl_cert_dir": "SSL_CERT_DIR",
    "openai_org": "OPENAI_ORG_ID",  # headers the probe sends as the openai client does
    "openai_project": "OPENAI_PROJECT_ID",
}

#: the reads of the environment outside this module, and why they stay there (a test checks the code
#: against this list: a new read of app configuration belongs in :class:`AppEnv`)
OTHER_READERS: dict[str, str] = {
    "desktop_agent/core/tools/host.py":
        "the tool host child's environment is built from this process's: the child's, not configuration",
    "desktop_agent/core/tools/host_main.py": "the tool host child process reads what its parent gave it",
    "desktop_agent/toolkit.py": "the tool authors' API runs inside the tool's process (the host child, `mcp serve`, "
                                "a script) and reads DESKTOP_AGENT_ALLOWED_FOLDERS given to that process; the "
                                "approval preview asks it so that it shows the file the tool will really use",
    "desktop_agent/ui/theme.py": "QT_STYLE_OVERRIDE is Qt's own: the user's style wins over ours",
    "desktop_agent/cli/desktop_entry.py": "XDG_DATA_HOME is the desktop's (the XDG base-directory spec): where the "
                                          "user's launchers and icons go, not the app's configuration",
    "desktop_agent/ui/single_instance.py": "XDG_RUNTIME_DIR is the desktop's per-user runtime folder (XDG spec), where "
                                           "the app's socket goes; the launch tokens (XDG_ACTIVATION_TOKEN, "
                                           "DESKTOP_STARTUP_ID) are the desktop's, passed on to the running app",
    "desktop_agent/ui/application.py": "DISPLAY, WAYLAND_DISPLAY, QT_QPA_PLATFORM are Qt's own: checked before "
                                       "QApplication, because Qt aborts the process without a display",
    "desktop_agent/core/mcp/launch.py": "an MCP server child runs in the user's environment (PATH, proxy, "
                                        "certificates, locale) and its command is found on the user's PATH: the "
                                        "child's, not configuration",
    "desktop_agent/core/mcp/formats.py": "an imported VS Code / Cursor file's ${env:NAME} names the user's variable: "
                                         "its value is what the other app would have given the server",
    "desktop_agent/core/doctor.py": "DISPLAY and WAYLAND_DISPLAY are the desktop's: doctor says whether the window "
                                    "can open here",
    "desktop_agent/ui/first_frame.py": "DESKTOP_AGENT_BENCH_FIRST_PAINT and DESKTOP_AGENT_BENCH_RESPONDS are the "
                                       "benchmark's probes of the first frame and of the window responding, not "
                                       "configuration",
}


class AppEnv(NamedTuple):
    """The environment variables the app uses (:data:`VARIABLES`), as read once; empty when not set. (Named
    tuples, not dataclasses, here: this module may be imported before the window's first frame, and a
    dataclass costs a millisecond of start-up each, the ``dataclasses`` module more.)"""

    ollama_host: str = ""
    openai_api_key: str = ""
    home: str = ""
    theme: str = ""
    ollama_api_key: str = ""
    ssl_cert_file: str = ""
    ssl_cert_dir: str = ""
    openai_org: str = ""
    openai_project: str = ""

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> AppEnv:
        """The variables of ``environ`` (default: this process's environment, now)."""
        env = os.environ if environ is None else environ
        return cls(**{name: env.get(variable) or "" for name, variable in VARIABLES.items()})

    def openai_headers(self) -> dict[str, str]:
        """The organization and project headers the openai client sends from the environment."""
        pairs = (("OpenAI-Organization", self.openai_org), ("OpenAI-Project", self.openai_project))
        return {header: value for header, value in pairs if value}

    def secret_environ(self) -> dict[str, str]:
        """What :class:`~desktop_agent.core.secrets.SecretStore` reads its environment key from."""
        return {VARIABLES["openai_api_key"]: self.openai_api_key} if self.openai_api_key else {}


def current_env() -> AppEnv:
    """This process's environment now — the default of a parameter no :class:`Services` handed down."""
    return AppEnv.read()


assert set(AppEnv._fields) == set(VARIABLES)  # one table, one snapshot


_OLLAMA_IMPORT = threading.Lock()


def import_ollama() -> ModuleType:
    """The ``ollama`` package. Importing it builds a default client from ``OLLAMA_HOST`` and raises ValueError
    for one it cannot parse (``http://[::1``) — before any of our clients, which are always given the host. The
    layering has already told the user that variable is unusable and uses the saved host, so the import is
    done again with the variable hidden for that moment (and put back)."""
    with _OLLAMA_IMPORT:
        try:
            import ollama
        except ValueError:
            raw = os.environ.pop("OLLAMA_HOST", None)
            if raw is None:
                raise
            try:
                import ollama
            finally:
                os.environ["OLLAMA_HOST"] = raw
        return ollama
