"""How a stdio MCP server's command is found and what environment it runs in, so that ``npx …``, ``uvx …`` or
``node …`` start when the app was launched from a desktop menu, whose ``PATH`` is short (``/usr/bin:/bin``):

- the user's login-shell ``PATH`` (``$SHELL -lic``, read once per shell and home, cached, with a timeout — a
  shell that hangs or prints banners costs nothing but that);
- plus the usual places tools install to (``~/.local/bin``, nvm's node versions, volta, asdf and mise shims,
  ``~/.cargo/bin``, ``~/.bun/bin``, ``/usr/local/bin`` …);
- a command still not found is named with what to install ("npx was not found: install Node.js 20+");
- ``~`` in the command (and in ``cwd``) is the user's home;
- the server's environment is the user's: the SDK's few safe variables, and the proxy, certificate, locale and
  session variables (never the app's own keys), with ``PATH`` as above so that a ``#!/usr/bin/env node`` script
  finds its interpreter; the server's configured variables go over them."""

from __future__ import annotations

import contextlib
import functools
import glob
import logging
import os
import pwd
import re
import shutil
import signal
import subprocess
from pathlib import Path

log = logging.getLogger(__name__)

#: how long the login shell may take to say its PATH (seconds)
SHELL_TIMEOUT_S = 4.0
_START, _END = "__DESKTOP_AGENT_PATH_START__", "__DESKTOP_AGENT_PATH_END__"

#: the usual places, ``~`` for the home; globs sorted newest-looking first
USUAL_PLACES = (
    "~/.local/bin", "~/bin", "~/.volta/bin", "~/.asdf/shims", "~/.local/share/mise/shims", "~/.bun/bin",
    "~/.cargo/bin", "~/.deno/bin", "~/.npm-global/bin", "~/.yarn/bin", "~/.pyenv/shims", "~/go/bin",
    "~/.nvm/versions/node/*/bin", "~/.local/share/fnm/aliases/default/bin", "~/.fnm/aliases/default/bin",
    "/usr/local/bin", "/opt/homebrew/bin", "/home/linuxbrew/.linuxbrew/bin", "/snap/bin",
    "/usr/bin", "/bin", "/usr/sbin", "/sbin",
)

#: what to install when a command is missing
INSTALL_HINTS = {
    **dict.fromkeys(("npx", "node", "npm", "pnpm", "yarn", "corepack"), "install Node.js 20+ (nodejs.org, or nvm)"),
    **dict.fromkeys(("uvx", "uv"), "install uv (docs.astral.sh/uv)"),
    **dict.fromkeys(("python", "python3", "pip", "pip3", "pipx"), "install Python 3.10+"),
    "docker": "install Docker (docs.docker.com/get-docker) and start it",
    "podman": "install Podman",
    "deno": "install Deno (deno.com)",
    "bun": "install Bun (bun.sh)",
    **dict.fromkeys(("cargo", "rustc"), "install Rust (rustup.rs)"),
    "go": "install Go (go.dev)",
    "java": "install a Java runtime",
}

#: variables of the user's environment a server is given besides the SDK's (HOME, PATH, SHELL, TERM, USER…)
PASSED_ON = re.compile(
    r"^(?:LANG|LANGUAGE|LC_[A-Z_]+|TZ|TMPDIR|TEMP|TMP|DISPLAY|WAYLAND_DISPLAY|DBUS_SESSION_BUS_ADDRESS|XDG_[A-Z_]+"
    r"|(?:HTTP|HTTPS|FTP|ALL|NO)_PROXY|(?:http|https|ftp|all|no)_proxy"
    r"|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|CURL_CA_BUNDLE|NODE_EXTRA_CA_CERTS|NODE_OPTIONS"
    r"|NVM_DIR|VOLTA_HOME|ASDF_DIR|ASDF_DATA_DIR|PYENV_ROOT|CARGO_HOME|RUSTUP_HOME|BUN_INSTALL|DENO_DIR"
    r"|UV_[A-Z_]+|PIP_INDEX_URL|PIP_EXTRA_INDEX_URL|NPM_CONFIG_[A-Z_]+|npm_config_[a-z_]+"
    r"|HOME|LOGNAME|USER|SHELL|TERM|PATH)$")


class CommandNotFound(FileNotFoundError):
    """A server's command is on none of the places looked in; the message says what to install."""


def home() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def login_shell() -> str:
    """The user's shell: ``$SHELL``, else the password database's, else ``/bin/sh``."""
    shell = os.environ.get("SHELL", "")
    if not shell:
        try:
            shell = pwd.getpwuid(os.getuid()).pw_shell
        except (KeyError, OSError):
            shell = ""
    return shell or "/bin/sh"


def login_path() -> list[str]:
    """The ``PATH`` the user's login shell sets up (cached per shell and home; empty when it cannot be read)."""
    return list(_login_path(login_shell(), home()))


@functools.lru_cache(maxsize=8)
def _login_path(shell: str, user_home: str) -> tuple[str, ...]:
    if not os.path.isfile(shell) or not os.access(shell, os.X_OK):
        return ()
    script = f'printf "%s%s%s" "{_START}" "$PATH" "{_END}"'
    flags = "-lc" if os.path.basename(shell) in ("sh", "dash") else "-lic"
    try:
        proc = subprocess.Popen([shell, flags, script], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env={**os.environ, "HOME": user_home},
                                cwd=user_home if os.path.isdir(user_home) else None, start_new_session=True)
    except OSError as exc:
        log.info("the login shell's PATH could not be read (%s): %s", shell, exc)
        return ()
    try:
        stdout, _ = proc.communicate(timeout=SHELL_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        log.info("the login shell %s did not say its PATH within %g s", shell, SHELL_TIMEOUT_S)
        _kill_session(proc.pid)  # the shell and whatever its profile started (job control: their own groups)
        proc.communicate()
        return ()
    out = stdout.decode(errors="replace")
    start, end = out.rfind(_START), out.rfind(_END)
    if start < 0 or end < start:
        log.info("the login shell %s did not say its PATH", shell)
        return ()
    return tuple(p for p in out[start + len(_START):end].split(os.pathsep) if p)


def _kill_session(sid: int) -> None:
    """Kill every process of session ``sid`` (Linux ``/proc``; elsewhere its process group)."""
    pids = {sid}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, ValueError):
                    if os.getsid(int(entry)) == sid:
                        pids.add(int(entry))
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.killpg(sid, signal.SIGKILL)


def forget() -> None:
    """Read the login shell again next time (after the user installed something)."""
    _login_path.cache_clear()


def usual_places() -> list[str]:
    """The usual places that exist on this machine (nvm's node versions newest first)."""
    out: list[str] = []
    for place in USUAL_PLACES:
        expanded = place.replace("~", home(), 1) if place.startswith("~") else place
        found = sorted(glob.glob(expanded), key=_version_key, reverse=True) if "*" in expanded else [expanded]
        out.extend(p for p in found if os.path.isdir(p))
    return out


def _version_key(path: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", path)[-3:])


def search_path() -> str:
    """Where commands are looked for, in order: this process's ``PATH``, the login shell's, the usual places."""
    seen: dict[str, None] = {}
    for part in [*os.environ.get("PATH", "").split(os.pathsep), *login_path(), *usual_places()]:
        if part and part not in seen:
            seen[part] = None
    return os.pathsep.join(seen)


def expand_home(text: str) -> str:
    return text.replace("~", home(), 1) if text == "~" or text.startswith("~/") else text


def resolve(command: str, path: str | None = None, cwd: str = "") -> str:
    """The full path of ``command`` (``~`` expanded; a relative path from ``cwd``; a bare name looked up on
    :func:`search_path`). Raises :class:`CommandNotFound` saying what to install."""
    command = expand_home(command.strip())
    if not command:
        raise CommandNotFound("the server has no command")
    if os.sep in command:
        if cwd and not os.path.isabs(command):
            command = os.path.join(expand_home(cwd), command)
        if os.path.isfile(command):
            return command
        raise CommandNotFound(f"the command was not found ({command})")
    found = shutil.which(command, path=search_path() if path is None else path)
    if found:
        return found
    raise CommandNotFound(not_found_message(command))


def not_found_message(command: str) -> str:
    """``npx was not found: install Node.js 20+ …`` — what to install for the commands we know."""
    name = os.path.basename(command)
    hint = INSTALL_HINTS.get(name) or INSTALL_HINTS.get(re.sub(r"[\d.]+$", "", name))
    where = "on PATH, in your login shell's PATH or the usual places"
    if hint:
        return f"{name} was not found ({where}): {hint}"
    return f"{name} was not found ({where}): install it, or give its full path"


def server_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a stdio server runs in: the user's (see :data:`PASSED_ON`), ``PATH`` as
    :func:`search_path`, then ``extra`` (the server's own variables; ``~`` at the start of a value expanded)."""
    env = {k: v for k, v in os.environ.items() if PASSED_ON.match(k) and not v.startswith("()")}
    env["PATH"] = search_path()
    for key, value in (extra or {}).items():
        env[key] = expand_home(value)
    return env


def working_dir(cwd: str) -> str | None:
    return str(Path(expand_home(cwd))) if cwd else None
