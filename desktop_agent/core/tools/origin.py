"""Where a tool's function lives (:func:`origin_of`): the address by which a separate process (the tool host)
finds it again. Both the app (to address a call) and the host child (to run it) use it."""

from __future__ import annotations

import sys

from desktop_agent.core.tools.definition import Tool

#: prefix of the module names the loader gives tool files (see loader.module_name_for)
LOADED_PREFIX = "desktop_agent_tools_"

#: ``(kind, where, attribute)``: ``("file", "/path/tool.py", "fn")`` or ``("module", "pkg.mod", "fn")``
Origin = tuple[str, str, str]


def origin_of(tool: Tool) -> Origin | None:
    """How a separate process finds ``tool``'s function again, or None when it cannot (a function made inside
    another function, a lambda, one defined in ``__main__``)."""
    fn = tool.fn
    module_name = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", "")
    if not module_name or not qualname or "." in qualname or "<" in qualname:
        return None
    module = sys.modules.get(module_name)
    if module is None or getattr(module, qualname, None) is not fn:
        return None
    if module_name.startswith(LOADED_PREFIX):
        if "." in module_name:  # a file of a tool package: the package is loaded, and re-exports the tool
            module = sys.modules.get(module_name.split(".", 1)[0])
            if module is None or getattr(module, qualname, None) is not fn:
                return None
        path = getattr(module, "__file__", None)
        return ("file", str(path), qualname) if path else None
    if module_name == "__main__":
        return None
    return ("module", module_name, qualname)
