"""``desktop-agent doctor``: one report of what the app depends on, each line ok / warning / broken with the fix —
the settings file, the model server and its model, the keyring, each MCP server starting (its stderr tail,
masked), the tools folder, the data folder, and what the window needs (a display, Qt's X libraries).

Each check is a function of its own returning :class:`Check` lines; one that raises unexpectedly is reported as a
broken line, never a traceback. Nothing here imports Qt (the window check asks the dynamic linker)."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_agent.core.mcp.manager import McpManager
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.services import Services
    from desktop_agent.core.settings import Settings

log = logging.getLogger(__name__)

OK, WARN, FAIL, SKIP = "ok", "warn", "fail", "skip"

#: a library Qt's X11 platform plugin needs → the Debian/Ubuntu package that has it
X_PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb-icccm.so.4": "libxcb-icccm4", "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-image.so.0": "libxcb-image0", "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-xinerama.so.0": "libxcb-xinerama0", "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxcb-shape.so.0": "libxcb-shape0", "libxcb-randr.so.0": "libxcb-randr0",
    "libxkbcommon.so.0": "libxkbcommon0", "libEGL.so.1": "libegl1", "libGL.so.1": "libgl1",
    "libOpenGL.so.0": "libopengl0", "libfontconfig.so.1": "libfontconfig1", "libdbus-1.so.3": "libdbus-1-3",
    "libX11-xcb.so.1": "libx11-xcb1", "libxcb.so.1": "libxcb1", "libglib-2.0.so.0": "libglib2.0-0",
}


@dataclass
class Check:
    """One line of the report: ``area`` (what was checked), ``status`` (:data:`OK`, :data:`WARN`, :data:`FAIL`,
    :data:`SKIP`), what was found, the fix, and lines to show under it (a server's stderr tail)."""

    area: str
    status: str
    text: str
    fix: str = ""
    details: list[str] = field(default_factory=list)


def broken(checks: list[Check]) -> bool:
    return any(c.status == FAIL for c in checks)


def _guarded(area: str, check: Callable[[], list[Check]]) -> list[Check]:
    try:
        return check()
    except Exception as exc:
        log.warning("doctor: the %s check failed", area, exc_info=True)
        return [Check(area, FAIL, f"the check itself failed: {type(exc).__name__}: {exc}",
                      "report this, with the log file")]


def run(services: Services, *, mcp: bool = True) -> Iterator[Check]:
    """Every check, in report order (the MCP servers start first, in the background, while the rest is
    checked)."""
    checks = _guarded("settings", lambda: settings_checks(services))
    yield from checks
    if broken(checks):
        return
    settings = services.effective
    manager = _guarded_start(services, settings) if mcp else None
    try:
        yield from _guarded("model server", lambda: model_checks(services, settings))
        yield from _guarded("keyring", lambda: keyring_checks(services.secrets, settings))
        yield from _guarded("data folder", lambda: data_checks(services))
        yield from _guarded("tools", lambda: tools_checks(services, settings))
        if mcp:
            yield from _guarded("MCP", lambda: mcp_checks(services.saved, manager))
        yield from _guarded("window", window_checks)
    finally:
        if manager is not None:
            manager.close()


def settings_checks(services: Services) -> list[Check]:
    path = services.settings_path
    out = [Check("settings", OK, str(path) if path.exists() else f"{path} (not saved yet: the defaults)")]
    out += [Check("settings", WARN, w, "fix it in the window's Settings (it is saved again then)")
            for w in services.file_warnings]
    return out


# ---- the model server ---------------------------------------------------------------------------------------


def _same_model(wanted: str, name: str) -> bool:
    return wanted == name or wanted.removesuffix(":latest") == name.removesuffix(":latest")


def model_checks(services: Services, settings: Settings) -> list[Check]:
    from desktop_agent.core import errors

    where = settings.ollama.host if settings.backend == "ollama" else settings.openai.base_url
    kind = "Ollama" if settings.backend == "ollama" else "OpenAI-compatible server"
    probe = services.assembly.one_off_backend(settings, probe=True)
    try:
        models = probe.list_models()
    except errors.AgentError as exc:
        return [Check("model server", FAIL, exc.what, exc.cli_hint or exc.hint)]
    finally:
        with contextlib.suppress(Exception):
            probe.close()
    out = [Check("model server", OK, f"{kind} at {where} answers ({len(models)} model"
                 f"{'s' if len(models) != 1 else ''})")]
    names = [m.name for m in models]
    model = settings.model
    if any(_same_model(model, n) for n in names):
        out.append(Check("model", OK, f"{model} is there"))
    elif not names and settings.backend == "openai":
        out.append(Check("model", WARN, f"the server lists no models, so whether it serves {model} is unknown",
                         "if chats fail, choose another with --model NAME"))
    else:
        missing = errors.ModelNotFound(model, settings.backend, names)
        out.append(Check("model", FAIL, missing.what, missing.cli_hint))
    return out


# ---- the keyring ----------------------------------------------------------------------------------------------


def _needs_keyring(settings: Settings) -> list[str]:
    """What the settings keep in the keyring (so a missing one is broken, not only a limit)."""
    from desktop_agent.core.environment import current_env
    from desktop_agent.core.mcp.config import secret_keys
    from desktop_agent.core.settings import is_loopback_url

    needs = [f"the secrets of MCP server {s.name}" for s in settings.mcp.servers if s.enabled and secret_keys(s)]
    # a local server (a loopback base URL) is used without a key when none can be read, as chats do
    needs_key = settings.openai.needs_key and not is_loopback_url(settings.openai.base_url)
    if settings.backend == "openai" and needs_key and not current_env().openai_api_key:
        needs.insert(0, "the API key")
    return needs


def keyring_checks(secrets: SecretStore, settings: Settings) -> list[Check]:
    name = secrets.backend_name
    if name is not None:
        secrets.get_secret("doctor:probe")  # reading is what finds a locked keyring
    if name is not None and secrets.problem is None:
        return [Check("keyring", OK, f"{name} (keys and MCP secrets are kept there)")]
    needs = _needs_keyring(settings)
    status = FAIL if needs else WARN
    problem = (secrets.problem or "the system keyring cannot be used").rstrip(".")
    if secrets.locked:
        fix = "unlock the keyring (e.g. in Passwords and Keys / KWallet) and run doctor again"
    else:
        fix = ("install and start a Secret Service keyring (GNOME Keyring or KWallet; on a desktop it is usually "
               "there); until then keys are kept for the session only")
    if needs:
        problem += ": " + ", ".join(needs) + " cannot be read"
        if "the API key" in needs:
            fix += "; or give the key in OPENAI_API_KEY"
    return [Check("keyring", status, problem, fix)]


# ---- the data and tools folders ----------------------------------------------------------------------------


def _writable(kind: str, folder: Callable[[], Path]) -> Check:
    from desktop_agent.core import paths

    fix = ("make it a folder you can write to (chmod u+w, free some space), or use another with --data-dir DIR "
           "or DESKTOP_AGENT_HOME")
    try:
        path = folder()
    except OSError as exc:
        where = exc.filename or (paths.home_override() or "")
        return Check(kind, FAIL, f"{where} cannot be created: {exc.strerror or exc}", fix)
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check(kind, FAIL, f"{path} is not writable: {exc.strerror or exc}", fix)
    return Check(kind, OK, f"{path} is writable")


def data_checks(services: Services) -> list[Check]:
    from desktop_agent.core import paths

    out = [_writable("data folder", paths.data_dir), _writable("config folder", paths.config_dir)]
    where = paths.planned_dir("data") / paths.STORE_NAME
    try:
        store = services.store
    except Exception as exc:  # noqa: BLE001 — said with the fix, not raised
        if out[0].status != OK:  # the folder is the problem, not the file
            why = f"{where}: {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else str(exc)
            out.append(Check("chat history", FAIL, f"chats can be neither opened nor saved: {why}", out[0].fix))
        else:
            out.append(Check("chat history", FAIL, f"{where} cannot be opened: {exc}",
                             "move the file aside (the app starts a new one), or restore it from a backup"))
        return out
    if out[0].status != OK:
        out.append(Check("chat history", FAIL, f"{where} can be read but new chats cannot be saved (the data folder "
                         "is not writable)", out[0].fix))
        return out
    out.append(Check("chat history", OK, str(where)))
    out += [Check("chat history", WARN, w) for w in store.warnings]
    return out


def tools_checks(services: Services, settings: Settings) -> list[Check]:
    from desktop_agent.core import paths

    if not settings.tools.enabled:
        return [Check("tools", SKIP, "tools are off in the settings")]
    try:
        folder = paths.user_tools_dir()
    except OSError as exc:
        return [Check("tools folder", FAIL, f"it cannot be created: {exc.strerror or exc}",
                      "make the data folder writable")]
    registry = services.registry(settings.updated({"mcp.enabled": False}))
    problems = services.tool_problems()
    count = len(registry) if registry is not None else 0
    files = len([p for p in folder.glob("*.py") if not p.name.startswith("_")])
    out = [Check("tools folder", OK, f"{folder} ({files} file{'s' if files != 1 else ''}; {count} tools load)")]
    out += [Check("tools", FAIL, problem, "fix the file or move it out of the tools folder") for problem in problems]
    return out


# ---- MCP ---------------------------------------------------------------------------------------------------


def _guarded_start(services: Services, settings: Settings) -> McpManager | None:
    from desktop_agent.core.mcp.manager import McpManager

    saved = services.saved
    if not saved.mcp.enabled or not any(s.enabled for s in saved.mcp.servers):
        return None
    try:
        manager = McpManager(saved.mcp.servers, services.secrets, start_timeout_s=saved.mcp.start_timeout_s)
        manager.start()
    except Exception:
        log.warning("doctor: the MCP servers could not be started", exc_info=True)
        return None
    return manager


def _mcp_fix(error: str) -> str:
    if "was not found" in error:
        return "install it (see above), or fix the command in Settings → MCP / desktop-agent mcp add"
    if "did not start within" in error or "stopped answering" in error:
        return ("check that it is the right command and that it speaks MCP on stdio; a slow first start (npx "
                "downloading) may pass on the next try")
    if "can't reach" in error:
        return "check the URL and that the server is running"
    return "read its output above; check its command, arguments and secrets (desktop-agent mcp list)"


def mcp_checks(saved: Settings, manager: McpManager | None) -> list[Check]:
    from desktop_agent.core.mcp.manager import FAILED, READY

    servers = saved.mcp.servers
    if not servers:
        return [Check("MCP", SKIP, "no MCP servers configured")]
    if not saved.mcp.enabled:
        return [Check("MCP", SKIP, f"MCP is off in the settings ({len(servers)} servers configured)")]
    out = [Check(f"MCP server {s.name}", SKIP, "disabled") for s in servers if not s.enabled]
    if manager is None:
        return out or [Check("MCP", FAIL, "the servers could not be started", "see the log file")]
    for state in manager.wait_ready(saved.mcp.start_timeout_s + 5):
        area = f"MCP server {state.name}"
        if state.state == READY:
            out.append(Check(area, OK, f"ready ({len(state.tools)} tool{'s' if len(state.tools) != 1 else ''})"))
            out += [Check(area, WARN, notice, "the other tools work; tell the server's author")
                    for notice in state.notices]
        elif state.state == FAILED:
            out.append(Check(area, FAIL, state.error, _mcp_fix(state.error), list(state.stderr)))
        else:
            out.append(Check(area, FAIL, f"still {state.state} after {saved.mcp.start_timeout_s:g} s",
                             _mcp_fix("did not start within")))
    return out


# ---- the window -------------------------------------------------------------------------------------------------


def missing_libraries(ldd_output: str) -> list[str]:
    """The libraries ``ldd`` reports as ``not found``."""
    return list(dict.fromkeys(m.group(1) for m in re.finditer(r"^\s*(\S+)\s+=>\s+not found", ldd_output, re.M)))


def _pyside_folder() -> Path | None:
    """Where the PySide6 package is installed, found without importing it (the core stays Qt-free)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    places = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(places[0]) if places else None


def _xcb_plugin() -> Path | None:
    folder = _pyside_folder()
    path = folder / "Qt" / "plugins" / "platforms" / "libqxcb.so" if folder is not None else None
    return path if path is not None and path.exists() else None


def window_checks() -> list[Check]:
    out: list[Check] = []
    if _pyside_folder() is None:
        return [Check("window", FAIL, "PySide6 (Qt for Python) is not installed", "pip install PySide6-Essentials")]
    display = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")
    if display:
        out.append(Check("display", OK, f"{'Wayland' if os.environ.get('WAYLAND_DISPLAY') else 'X11'} ({display})"))
    else:
        out.append(Check("display", WARN, "no display here (DISPLAY and WAYLAND_DISPLAY are not set)",
                         "the window needs a desktop session; the terminal commands work without one"))
    plugin = _xcb_plugin()
    ldd = shutil.which("ldd")
    if not sys.platform.startswith("linux") or plugin is None or ldd is None:
        return out
    try:
        done = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        out.append(Check("X libraries", WARN, f"could not be checked ({exc})"))
        return out
    missing = missing_libraries(done.stdout)
    if not missing:
        out.append(Check("X libraries", OK, "everything Qt's X11 plugin needs is installed"))
        return out
    packages = sorted({X_PACKAGES.get(lib, lib) for lib in missing})
    out.append(Check("X libraries", FAIL, "missing for the window: " + ", ".join(missing),
                     "install them, e.g. sudo apt install " + " ".join(packages)))
    return out
