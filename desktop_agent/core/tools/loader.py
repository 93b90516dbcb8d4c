"""Find tool modules and register their ``@tool`` functions; one broken module never stops the others.

Where tools come from, in this order (the first tool of a name wins; a later one with the same name
is reported as a problem):

1. **shipped**: the ``tools/`` folder of the project, installed inside the package as
   ``desktop_agent/shipped_tools`` (pyproject force-includes it into the wheel); in a source checkout
   the ``tools/`` folder next to the package. ``source = "shipped"``.
2. **user**: :func:`desktop_agent.core.paths.user_tools_dir` (``~/.local/share/desktop-agent/tools`` on
   Linux). ``source = "user"``.
3. **extra folders** (``--tools-dir DIR``): ``source`` = the folder path.
4. **entry points** in the group ``desktop_agent.tools``, whose value is a module (or a single tool
   function): ``mytools = "mypkg.tools"`` in a package's ``[project.entry-points."desktop_agent.tools"]``.
   ``source = "entry point mytools"``.

In a folder, every ``*.py`` file and every sub-folder with an ``__init__.py`` is loaded as a module,
except names starting with ``_`` or ``.``. Modules are loaded by file path under a unique module name
(``desktop_agent_tools_<hash>_<stem>``), so files with the same name in two folders do not clash. A tool
module should be self-contained (a package folder may use relative imports between its files).
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

from desktop_agent.core.tools.decorator import is_tool
from desktop_agent.core.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "desktop_agent.tools"


def shipped_tools_dir() -> Path | None:
    """The folder of the shipped tools: ``<package>/shipped_tools`` when installed (wheel, PyInstaller),
    else ``tools/`` beside the package in a source checkout; None if neither exists."""
    import desktop_agent

    package = Path(desktop_agent.__file__).resolve().parent
    for candidate in (package / "shipped_tools", package.parent / "tools"):
        if candidate.is_dir():
            return candidate
    return None


def load_tools(
    registry: ToolRegistry,
    extra_dirs: Iterable[str | Path] = (),
    *,
    shipped: bool = True,
    user_dir: bool = True,
    entry_points: bool = True,
) -> list[str]:
    """Register every ``@tool`` function found in the enabled places into ``registry``.

    Returns the problems found, one line of text each, naming the file (or entry point) and the reason
    (syntax error with its line, import error, a tool whose schema cannot be built, a duplicate name,
    a missing folder). Never raises for a broken tool module.
    """
    problems: list[str] = []
    if shipped:
        folder = shipped_tools_dir()
        if folder is None:
            problems.append("the shipped tools folder was not found (neither desktop_agent/shipped_tools nor tools/)")
        else:
            problems += load_dir(registry, folder, source="shipped")
    if user_dir:
        try:
            from desktop_agent.core import paths

            folder = paths.user_tools_dir()
        except Exception as exc:  # noqa: BLE001 — unwritable data dir, …: reported, the other places still load
            problems.append(f"user tools folder: cannot open it ({type(exc).__name__}: {exc})")
        else:
            problems += load_dir(registry, folder, source="user")
    for extra in extra_dirs:
        folder = Path(extra).expanduser()
        problems += load_dir(registry, folder, source=str(folder))
    if entry_points:
        problems += load_entry_points(registry)
    for problem in problems:
        log.warning("tools: %s", problem)
    return problems


def load_dir(registry: ToolRegistry, folder: str | Path, *, source: str) -> list[str]:
    """Load every tool module of one folder (see the module docstring). Returns problems."""
    folder = Path(folder)
    if not folder.is_dir():
        return [f"{folder}: tools folder does not exist"]
    problems: list[str] = []
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        return [f"{folder}: cannot list the folder ({exc.strerror or exc})"]
    for path in entries:
        if path.name.startswith(("_", ".")):
            continue
        if path.is_file() and path.suffix == ".py":
            target = path
        elif path.is_dir() and (path / "__init__.py").is_file():
            target = path / "__init__.py"
        else:
            continue
        module, problem = load_module_file(target)
        if problem is not None:
            problems.append(problem)
            continue
        problems += register_module(registry, module, source=source, label=str(path))
    return problems


def module_name_for(path: Path) -> str:
    resolved = str(path.resolve())
    digest = hashlib.sha1(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    stem = path.parent.name if path.name == "__init__.py" else path.stem
    stem = re.sub(r"\W", "_", stem) or "module"
    return f"desktop_agent_tools_{digest}_{stem}"


def load_module_file(path: Path) -> tuple[ModuleType | None, str | None]:
    """Import one file (a package's ``__init__.py`` imports the package) under a unique module name.

    Returns ``(module, None)`` or ``(None, problem)``.
    """
    name = module_name_for(path)
    label = str(path.parent if path.name == "__init__.py" else path)
    try:
        if path.name == "__init__.py":
            spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=[str(path.parent)])
        else:
            spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            return None, f"{label}: cannot be loaded as a Python module"
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # pydantic models and dataclasses look their module up here
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(name, None)
        where = f" at line {exc.lineno}" if exc.lineno else ""
        return None, f"{label}: syntax error{where}: {exc.msg}"
    except (Exception, SystemExit) as exc:
        sys.modules.pop(name, None)
        log.warning("tools: %s failed to load", path, exc_info=True)  # the traceback, once per load
        return None, f"{label}: failed to load ({_reason(exc)})"
    return module, None


def register_module(registry: ToolRegistry, module: Any, *, source: str, label: str) -> list[str]:
    """Register every function of ``module`` marked with ``@tool`` (in definition order).

    A function already registered (the same object, e.g. re-exported by another module) is skipped.
    Returns problems (duplicate names, schemas that cannot be built).
    """
    problems: list[str] = []
    try:
        members = list(vars(module).items())
    except TypeError:
        return [f"{label}: is not a module"]
    for attr, obj in members:
        if attr.startswith("_") or not is_tool(obj):
            continue
        if any(t.fn is obj for t in registry):
            continue
        try:
            registry.register(obj, source=source)
        except Exception as exc:  # noqa: BLE001 — one bad tool is reported and skipped
            tool_name = getattr(obj, "__name__", attr)
            problems.append(f"{label}: tool '{tool_name}' skipped: {_reason(exc, with_type=False)}")
    return problems


def load_entry_points(registry: ToolRegistry) -> list[str]:
    """Load the modules (or single tool functions) advertised in the ``desktop_agent.tools`` group."""
    from importlib.metadata import entry_points

    problems: list[str] = []
    try:
        found = list(entry_points(group=ENTRY_POINT_GROUP))
    except Exception as exc:  # noqa: BLE001 — broken distribution metadata is reported, not raised
        return [f"entry points {ENTRY_POINT_GROUP}: cannot be listed ({_reason(exc)})"]
    seen: set[str] = set()
    for ep in found:
        if ep.name in seen:  # the same distribution seen twice on sys.path
            continue
        seen.add(ep.name)
        label = f"entry point {ep.name} ({ep.value})"
        try:
            obj = ep.load()
        except (Exception, SystemExit) as exc:  # noqa: BLE001 — one broken entry point never stops the others
            problems.append(f"{label}: failed to load ({_reason(exc)})")
            continue
        source = f"entry point {ep.name}"
        if isinstance(obj, ModuleType):
            problems += register_module(registry, obj, source=source, label=label)
        elif callable(obj):
            if any(t.fn is obj for t in registry):
                continue
            try:
                registry.register(obj, source=source)
            except Exception as exc:  # noqa: BLE001 — one bad tool is reported and skipped
                problems.append(f"{label}: skipped: {_reason(exc, with_type=False)}")
        else:
            problems.append(f"{label}: is neither a module nor a function")
    return problems


def _reason(exc: BaseException, *, with_type: bool = True) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if not with_type:
        return text or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
