"""The one place that builds the backend, the tool registry and the agent from layered settings (layered by
:mod:`desktop_agent.core.services`, which calls this). Nothing else constructs a backend.

- :func:`backend_spec` + :func:`build_backend`: everything a backend is built from, as one frozen value.
- :class:`Assembly`: a long-lived builder that caches the backend by *everything that built it* — its whole
  spec and a fingerprint of the API keys — so a fixed key or a changed timeout is used by the next turn,
  and a tool registry by the tool settings.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from desktop_agent.core import paths
from desktop_agent.core.environment import AppEnv
from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.settings import DEFAULT_SYSTEM_PROMPT, TOOLS_PROMPT, Settings, is_loopback_url
from desktop_agent.core.urls import OLLAMA_DEFAULT_PORT as OLLAMA_DEFAULT_PORT  # re-exported: the URL rules
from desktop_agent.core.urls import parse_ollama_host as parse_ollama_host  # live in core/urls.py

if TYPE_CHECKING:
    from desktop_agent.core.agent import Agent, OnMessage
    from desktop_agent.core.backends.base import ChatBackend
    from desktop_agent.core.backends.probe import OllamaProbe, OpenAIProbe
    from desktop_agent.core.capabilities import Capabilities, ServerKey
    from desktop_agent.core.events import Notice
    from desktop_agent.core.mcp.manager import McpManager, ServerState
    from desktop_agent.core.model_info import ModelFacts
    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.store.database import StoreDatabase
    from desktop_agent.core.tools.definition import Tool
    from desktop_agent.core.tools.host import ToolHost
    from desktop_agent.core.tools.permissions import PermissionEngine
    from desktop_agent.core.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

#: how long a probe of a server (Test connection, the window's server check and model listing) waits
PROBE_TIMEOUT_S = 10.0


# ---- API keys ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KeySet:
    """The API keys for a base URL and where they came from (``"system keyring"``, ``"environment"``,
    ``"this session only"``, ``"not saved yet"`` for keys being edited; None when there are none)."""

    keys: tuple[str, ...] = ()
    source: str | None = None
    #: no key was found and the system keyring is locked: a key saved there can't be read now
    locked: bool = False

    @property
    def fingerprint(self) -> str:
        """Identifies the keys without holding them (a cache key, a log line)."""
        digest = hashlib.sha256("\0".join(self.keys).encode("utf-8", "surrogatepass")).hexdigest()
        return digest[:16] if self.keys else ""


def api_keys(settings: Settings, secrets: SecretStore | None, *, retry_locked: bool = False) -> KeySet:
    """The OpenAI-compatible keys ``settings`` need (none for Ollama or without a secret store). ``retry_locked``:
    a keyring found locked earlier is asked again (a turn, after the user was told to unlock it)."""
    if settings.backend != "openai" or secrets is None:
        return KeySet()
    base_url = settings.openai.base_url
    locked = bool(getattr(secrets, "locked", False))
    if retry_locked and locked:
        secrets.retry_keyring()
    keys = tuple(secrets.get_api_keys(base_url))
    locked = not keys and bool(getattr(secrets, "locked", False))
    return KeySet(keys, secrets.where(base_url) if keys else None, locked=locked)


# ---- backends ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BackendSpec:
    """Everything a backend is built from except the keys: the backend kind and its constructor options."""

    kind: str
    options: tuple[tuple[str, Any], ...]

    def option(self, name: str) -> Any:
        return dict(self.options).get(name)


def backend_spec(settings: Settings, keys: KeySet = KeySet(), *, timeout_s: float | None = None,
                 retries: int | None = None) -> BackendSpec:
    """The spec of the backend ``settings`` ask for; ``timeout_s`` replaces both waits (first data, next data)
    and ``retries`` the retries per key (a probe — Test connection, the window's model listing — waits seconds,
    not minutes, and does not retry)."""
    gen = settings.generation
    models = settings.models
    if settings.backend == "ollama":
        o = settings.ollama
        return BackendSpec("ollama", (
            ("host", o.host), ("model", o.model), ("temperature", gen.temperature),
            ("keep_alive", o.keep_alive), ("format", gen.format), ("think", gen.think),
            ("timeout_s", timeout_s or o.timeout_s), ("next_data_timeout_s", timeout_s or o.next_data_timeout_s),
            ("max_window", models.max_window), ("window", models.window_setting(o.model)),
            ("default_window", models.default_window), ("force_think", o.model in models.think_anyway),
        ))
    a = settings.openai
    # a local server (LM Studio, llama.cpp, vLLM on loopback) gets a placeholder key when none is set
    needs_key = a.needs_key and not (not keys.keys and is_loopback_url(a.base_url))
    return BackendSpec("openai", (
        ("base_url", a.base_url), ("model", a.model), ("temperature", gen.temperature),
        ("timeout_s", timeout_s or a.timeout_s), ("next_data_timeout_s", timeout_s or a.next_data_timeout_s),
        ("retries_per_key", a.retries_per_key if retries is None else retries),
        ("retry_interval_s", a.retry_interval_s), ("needs_key", needs_key),
        ("null_tool_content", a.null_tool_content), ("keyring_locked", keys.locked),
        ("window", models.window_setting(a.model)), ("default_window", models.default_window),
        ("stream_usage", True),
    ))


def build_backend(spec: BackendSpec, keys: KeySet = KeySet(), env: AppEnv | None = None) -> ChatBackend:
    """A new backend for ``spec`` (imports its client library now, so call it off the GUI thread). ``env``:
    the environment it sends from (a hosted Ollama's key; default this process's now)."""
    options = dict(spec.options)
    if spec.kind == "ollama":
        from desktop_agent.core.backends.ollama import OllamaBackend

        api_key = (env or AppEnv.read()).ollama_api_key or None
        return OllamaBackend(options.pop("host"), options.pop("model"), api_key=api_key, **options)
    from desktop_agent.core.backends.openai import OpenAIBackend

    return OpenAIBackend(options.pop("base_url"), options.pop("model"), list(keys.keys), **options)


def build_probe(spec: BackendSpec, keys: KeySet = KeySet(), env: AppEnv | None = None) -> OllamaProbe | OpenAIProbe:
    """What asks the server of ``spec`` for its models (and Ollama's version) with plain HTTP GETs — no
    client library is imported (:mod:`desktop_agent.core.backends.probe`). ``env``: the environment it sends
    and trusts what from, as the client libraries do (default: this process's)."""
    from desktop_agent.core.backends.probe import OllamaProbe, OpenAIProbe

    env = env or AppEnv.read()
    certs = (env.ssl_cert_file, env.ssl_cert_dir)
    options = dict(spec.options)
    if spec.kind == "ollama":
        return OllamaProbe(options["host"], options["model"], timeout_s=options["timeout_s"] or PROBE_TIMEOUT_S,
                           api_key=env.ollama_api_key, certs=certs)
    from desktop_agent.core.backends.openai import OpenAIBackend  # the key pool and error rules; no client yet

    return OpenAIProbe(OpenAIBackend(options.pop("base_url"), options.pop("model"), list(keys.keys), **options),
                       headers=env.openai_headers(), certs=certs)


# ---- tools and the agent ----------------------------------------------------------------------------


def build_registry(settings: Settings, extra_dirs: Iterable[str] = (),
                   permissions: PermissionEngine | None = None, *,
                   host: ToolHost | None = None) -> tuple[ToolRegistry, list[str]]:
    """The tool registry for ``settings`` (shipped tools, the tools folder, ``settings.tools.dirs`` and
    ``extra_dirs``) and the problems met loading it (one line each). ``permissions``: the engine deciding its
    calls (default: a new one, without saved rules). With ``tools.isolated`` its calls run in
    ``host`` (a new :class:`~desktop_agent.core.tools.host.ToolHost` if None; the caller closes it with
    :meth:`ToolRegistry.close`)."""
    from desktop_agent.core.tools.loader import load_tools
    from desktop_agent.core.tools.registry import ToolRegistry

    if not settings.tools.isolated:
        host = None
    elif host is None:
        from desktop_agent.core.tools.host import ToolHost

        host = ToolHost()
    registry = ToolRegistry(timeout_s=settings.tools.timeout_s, output_cap=settings.tools.output_cap,
                            permissions=permissions, host=host)
    problems = load_tools(registry, [*settings.tools.dirs, *extra_dirs])
    return registry, list(problems or [])


def permission_engine(store: StoreDatabase | None = None) -> PermissionEngine:
    """The permission engine of a surface: its user rules kept in ``store`` (None: in memory only)."""
    from desktop_agent.core.tools.permissions import PermissionEngine, RuleBook

    engine = PermissionEngine(RuleBook())
    if store is not None:
        attach_rules(engine, store)
    return engine


def attach_rules(engine: PermissionEngine, store: StoreDatabase) -> None:
    """Keep ``engine``'s user rules in ``store`` (its saved rules are loaded now)."""
    from desktop_agent.core.store.rules import ToolRules

    engine.rules.attach(ToolRules(store))


def tool_load_key(settings: Settings) -> Any:
    """What loading the tools depends on: the tool settings without those read per turn or per call (the
    tools left out, the folders file tools may use)."""
    return settings.tools.model_copy(update={"enabled": True, "disabled": [], "allowed_folders": []})


def start_mcp(settings: Settings, secrets: SecretStore | None = None,
              on_change: Callable[[ServerState], None] | None = None) -> McpManager | None:
    """The MCP servers of ``settings`` (the enabled ones), starting in the background; None when MCP is off or
    no server is enabled. ``on_change``: see :class:`~desktop_agent.core.mcp.manager.McpManager`. The caller
    closes it."""
    if not settings.mcp.enabled or not any(s.enabled for s in settings.mcp.servers):
        return None
    from desktop_agent.core.mcp.manager import McpManager

    manager = McpManager(settings.mcp.servers, secrets, start_timeout_s=settings.mcp.start_timeout_s,
                         call_timeout_s=settings.tools.timeout_s, on_change=on_change)
    manager.start()
    return manager


def with_mcp_tools(registry: ToolRegistry | None, manager: McpManager | None,
                   settings: Settings, permissions: PermissionEngine | None = None) -> ToolRegistry | None:
    """``registry`` plus the tools of ``manager``'s ready servers (None: tools are off); a new registry is decided
    by ``permissions`` (a given registry keeps its own engine)."""
    if manager is None or not settings.tools.enabled:
        return registry
    tools = manager.tools(taken=set(registry.names()) if registry is not None else set())
    if not tools:
        return registry
    if registry is None:
        from desktop_agent.core.tools.registry import ToolRegistry

        registry = ToolRegistry(timeout_s=settings.tools.timeout_s, output_cap=settings.tools.output_cap,
                                permissions=permissions)
    return registry.with_tools(tools)


def build_agent(settings: Settings, backend: ChatBackend, registry: ToolRegistry | None,
                on_message: OnMessage | None = None) -> Agent:
    """The agent loop for ``settings`` around ``backend`` and ``registry``; the tools named in
    ``settings.tools.disabled`` are not offered."""
    from desktop_agent.core.agent import Agent

    learned_capabilities()
    loop = settings.loop
    if registry is not None and settings.tools.disabled:
        registry = registry.without(settings.tools.disabled)
    tools = registry if registry is not None and len(registry) else None
    agent = Agent(
        backend, tools,
        system_prompt=loop.system_prompt, max_steps=loop.max_steps,
        max_history=loop.max_history_messages, tool_choice=loop.tool_choice, on_message=on_message,
        tools_anyway=offers_tools_anyway(settings),
        max_offered=settings.tools.max_offered or None,
        relevant_only=settings.tools.only_relevant and bool(settings.tools.max_offered),
        tools_prompt=TOOLS_PROMPT if loop.system_prompt == DEFAULT_SYSTEM_PROMPT else None,
    )
    agent.auto_compact = settings.models.auto_compact
    return agent


def learned_capabilities() -> Capabilities:
    """What was learned about servers and models, the process-wide store every agent shares, kept in the cache
    folder's ``capabilities.json`` (Settings → Tools → Learned and ``desktop-agent tools --learned`` show it)."""
    from desktop_agent.core import state

    state.LEARNED.use_file(paths.cache_dir() / "capabilities.json")
    return state.LEARNED


def offers_tools_anyway(settings: Settings) -> bool:
    """Whether the user chose to offer tools to ``settings.model`` although it cannot use them as its server says or
    as the app learned: in this chat (``tools.offer_anyway``) or for the model everywhere (the model picker)."""
    return settings.tools.offer_anyway or settings.model in settings.models.tools_anyway


def learned_key(settings: Settings) -> ServerKey:
    """The (backend, URL, model) what is learned about the server and model of ``settings`` is kept under — the
    key :func:`~desktop_agent.core.capabilities.server_key` gives the backend they build."""
    from desktop_agent.core.capabilities import server_key

    if settings.backend == "ollama":
        host = settings.ollama.host.strip()
        url = host if "://" in host else f"http://{host}"  # as the ollama client makes "localhost:11434"
        return server_key(SimpleNamespace(name="ollama", host=url, model=settings.model))
    return server_key(SimpleNamespace(name="openai", base_url=settings.openai.base_url, model=settings.model))


def tools_off_reason(settings: Settings, facts: ModelFacts | None = None,
                     capabilities: Capabilities | None = None) -> str | None:
    """Why a turn with ``settings`` goes without tools although the chat offers them: ``its server says it cannot
    use tools`` (``facts``, what the server said of the model) or what was learned (``capabilities``, default
    the process-wide one) — None when they are offered (or the chat offers none). The user's Offer tools anyway
    (:func:`offers_tools_anyway`) outweighs it; the reason is given all the same."""
    from desktop_agent.core.capabilities import tools_off_reason as learned_reason

    if not settings.tools.enabled:
        return None
    if facts is not None and not facts.can("tools"):
        return QT_TRANSLATE_NOOP("ToolsOffered", "its server says it cannot use tools")
    known = capabilities if capabilities is not None else learned_capabilities()
    return learned_reason(known.learned_for(learned_key(settings)))


def system_prompt(settings: Settings, tools_offered: bool) -> str:
    """The system prompt of a turn: the user's own as written; the default one says how to use tools only
    when tools are offered."""
    prompt = settings.loop.system_prompt
    if prompt == DEFAULT_SYSTEM_PROMPT and tools_offered:
        return f"{prompt}\n{TOOLS_PROMPT}"
    return prompt


BackendFactory = Callable[[Settings, KeySet], "ChatBackend"]


@dataclass
class Assembly:
    """Builds agents for a long-lived surface (the window), caching the backend and the tool registry while
    what built them is unchanged. ``backend_factory`` and ``registry`` are test hooks (a scripted backend,
    a ready registry). Thread-safe; :meth:`abort` may be called from any thread."""

    secrets: SecretStore | None = None
    backend_factory: BackendFactory | None = None
    registry_override: ToolRegistry | None = None
    extra_tool_dirs: tuple[str, ...] = ()
    #: the environment snapshot of the :class:`~desktop_agent.core.services.Services` that made it (None: this
    #: process's, read when needed)
    env: AppEnv | None = None
    #: problems from tool loading not yet shown to the user
    pending_problems: list[str] = field(default_factory=list)
    #: counts :meth:`reload_tools` calls: a list of tools made before a reload is out of date
    tools_generation: int = field(default=0, init=False)
    _backend: Any = field(default=None, init=False, repr=False)
    _backend_key: tuple[BackendSpec, str] | None = field(default=None, init=False, repr=False)
    _registry: Any = field(default=None, init=False, repr=False)
    _registry_key: tuple[Any, ...] | None = field(default=None, init=False, repr=False)
    #: decides every tool call of the agents built here (rules kept in the store once :meth:`use_store` ran)
    permissions: PermissionEngine = field(default_factory=lambda: permission_engine())
    _host: Any = field(default=None, init=False, repr=False)
    _mcp: Any = field(default=None, init=False, repr=False)
    _mcp_key: Any = field(default=None, init=False, repr=False)
    _mcp_closed: bool = field(default=False, init=False, repr=False)
    #: called (on any thread) when an MCP server's state changes or the servers were replaced (with None)
    _mcp_watchers: list[Callable[[ServerState | None], None]] = field(default_factory=list, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _registry_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _mcp_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def backend(self, settings: Settings) -> ChatBackend:
        keys = api_keys(settings, self.secrets, retry_locked=True)
        key = (backend_spec(settings, keys), keys.fingerprint)
        with self._lock:
            if self._backend is not None and key == self._backend_key:
                return self._backend
        self._close_backend()
        if self.backend_factory is not None:
            backend = self.backend_factory(settings, keys)
        else:
            backend = build_backend(key[0], keys, self.env)
        with self._lock:
            self._backend, self._backend_key = backend, key
        return backend

    def registry(self, settings: Settings) -> ToolRegistry | None:
        """The tool registry for ``settings`` (None when tools are off), loaded once per tool folders, timeout
        and output cap — which tools are left out (``tools.disabled``) is decided per turn by :func:`build_agent`.
        Thread-safe (the worker and the window's background tasks both ask)."""
        if self.registry_override is not None:
            self.registry_override.permissions = self.permissions  # one engine decides, whatever the registry
            return self.registry_override
        if not settings.tools.enabled:
            return None
        key = (tool_load_key(settings), self.extra_tool_dirs)
        with self._registry_lock:
            if self._registry is None or key != self._registry_key:
                registry, problems = build_registry(settings, self.extra_tool_dirs, self.permissions,
                                                    host=self._tool_host())
                self.pending_problems.extend(problems)
                if registry.host is not None and len(registry):
                    registry.host.warm()  # its first process loads in the background, before the first call
                self._registry, self._registry_key = registry, key
            registry = self._registry
        return with_mcp_tools(registry, self.mcp_in_use(settings), settings, self.permissions)

    def mcp(self, settings: Settings) -> McpManager | None:
        """The MCP servers of ``settings``, started (in the background) the first time; when their settings
        change, the servers that changed are started again (the others go on); None when there are none."""
        if self.registry_override is not None:
            return None
        key = settings.mcp
        with self._mcp_lock:  # one start at a time: a turn asking meanwhile gets the manager being started
            with self._lock:
                if self._mcp_key == key or self._mcp_closed:
                    return self._mcp
                old, self._mcp, self._mcp_key = self._mcp, None, key
            if old is not None and settings.mcp.enabled and any(s.enabled for s in settings.mcp.servers):
                # only the servers that changed are stopped and started again; the others go on
                old.reconfigure(settings.mcp.servers, start_timeout_s=settings.mcp.start_timeout_s,
                                call_timeout_s=settings.tools.timeout_s)
                manager: McpManager | None = old
            else:
                if old is not None:
                    old.close()
                manager = start_mcp(settings, self.secrets, on_change=self._mcp_changed)
            with self._lock:
                closed = self._mcp_closed
                if not closed:
                    self._mcp = manager
            if closed and manager is not None:  # the assembly closed meanwhile: no server outlives it
                manager.close()
                return None
        self._mcp_changed(None)
        return manager

    def mcp_in_use(self, settings: Settings) -> McpManager | None:
        """The MCP servers a turn or a tool list uses: the ones running now. Only :meth:`mcp` (the window at
        start and on saved settings) changes which run — a caller holding older settings (a dialog, a listing
        started before a save) must not stop the servers just started; the first caller starts them."""
        with self._lock:
            if self._mcp_key is not None or self._mcp_closed:
                return self._mcp
        return self.mcp(settings)

    def wait_for_mcp(self, settings: Settings, cancel: threading.Event | None = None) -> Iterator[Notice]:
        """Before a turn: wait for the MCP servers still starting (each at most its start timeout, less when
        ``cancel`` is set), so that the turn offers their tools; a :class:`Notice` says which are waited for.
        Nothing when tools are off or no server is starting."""
        if not settings.tools.enabled:
            return
        manager = self.mcp_in_use(settings)
        starting = manager.starting() if manager is not None else []
        if manager is None or not starting:
            return
        from desktop_agent.core.events import Notice

        yield Notice(f"waiting for MCP server{'s' if len(starting) > 1 else ''} {', '.join(starting)}…")
        manager.wait_ready(cancel=cancel)

    def current_mcp(self) -> McpManager | None:
        """The MCP servers running now (None: none started), without starting any."""
        with self._lock:
            return self._mcp

    def watch_mcp(self, watcher: Callable[[ServerState | None], None]) -> Callable[[], None]:
        """Call ``watcher`` (on the manager's or a worker's thread) when a server's state changes, and with None
        when the servers were replaced (settings changed); returns the function that stops it."""
        with self._lock:
            self._mcp_watchers.append(watcher)

        def unwatch() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._mcp_watchers.remove(watcher)

        return unwatch

    def _mcp_changed(self, state: ServerState | None) -> None:
        with self._lock:
            watchers = list(self._mcp_watchers)
        for watcher in watchers:
            try:
                watcher(state)
            except Exception:
                log.warning("MCP state watcher failed", exc_info=True)

    def _tool_host(self) -> ToolHost:
        """The one tool host of this assembly: it addresses tools by file and function, so the registries built
        one after the other (other folders, a reload) share it, and a call running meanwhile is not touched."""
        if self._host is None:
            from desktop_agent.core.tools.host import ToolHost

            self._host = ToolHost()
        return self._host

    def available_tools(self, settings: Settings) -> list[Tool]:
        """Every tool a chat can choose from with ``settings`` — also when tools are off or some are left
        out. Loads the tools the first time (call it off the GUI thread)."""
        registry = self.registry(settings.updated({"tools.enabled": True, "tools.disabled": []}))
        return list(registry) if registry is not None else []

    def reload_tools(self, settings: Settings) -> tuple[list[Tool], list[str]]:
        """Load every tool again from its files, now (no restart): a file added, changed or removed in a tools
        folder counts from the next turn on. Returns the tools (as :meth:`available_tools`) and the problems
        met — given to the caller to show, not queued for the next turn; each broken file's traceback goes to
        the log once. A broken file costs only its own tools. Call it off the GUI thread."""
        if self.registry_override is not None:
            return list(self.registry_override), []
        every = settings.updated({"tools.enabled": True, "tools.disabled": []})
        with self._registry_lock:
            registry, problems = build_registry(every, self.extra_tool_dirs, self.permissions,
                                                host=self._tool_host())
            if registry.host is not None and len(registry):
                registry.host.warm()
            self._registry, self._registry_key = registry, (tool_load_key(every), self.extra_tool_dirs)
            self.tools_generation += 1
        offered = with_mcp_tools(registry, self.mcp_in_use(every), every, self.permissions)
        return list(offered) if offered is not None else [], problems

    def probe_keys_first(self, settings: Settings) -> tuple[str, ...] | None:
        """The keys a probe of ``settings``' server (the window's model listing) tries first: none, ``()``, for an
        OpenAI-compatible server on this machine while the system keyring has not been read yet — a local server
        usually takes no key, and reading the keyring loads ≈ 17 MB of libraries (keyring, secretstorage,
        jeepney, cryptography) and may ask to unlock it; the caller asks again with the stored keys (None) when
        the server wants one. None — the stored keys — for any other server: a server that needs a key is told
        to be missing one at once."""
        if settings.backend != "openai" or not is_loopback_url(settings.openai.base_url):
            return None
        if self.secrets is None or getattr(self.secrets, "keyring_read", True):
            return None
        return ()

    def one_off_backend(self, settings: Settings, *, timeout_s: float | None = None, probe: bool = False,
                        keys: Iterable[str] | None = None) -> ChatBackend | OllamaProbe | OpenAIProbe:
        """A new backend, not cached, for a one-off call (model listing, Test connection, pull); the caller
        closes it. ``probe``: only to list models and ask the version — answers within :data:`PROBE_TIMEOUT_S`,
        no retries, plain HTTP without the client library (:func:`build_probe`). ``keys``: the API keys to use
        instead of the stored ones (Settings' Test connection tries keys that are not saved yet). Runs on a
        background thread: it may read the keyring and import the client library."""
        if keys is not None:
            given = tuple(keys)
            keyset = KeySet(given, "not saved yet" if given else None)
        else:
            keyset = api_keys(settings, self.secrets)
        if self.backend_factory is not None:
            return self.backend_factory(settings, keyset)
        if probe:
            spec = backend_spec(settings, keyset, timeout_s=timeout_s or PROBE_TIMEOUT_S, retries=0)
            return build_probe(spec, keyset, self.env)
        return build_backend(backend_spec(settings, keyset, timeout_s=timeout_s), keyset, self.env)

    def agent(self, settings: Settings, on_message: OnMessage | None = None) -> Agent:
        """A new agent around the cached backend and registry (who is asked about a tool call is the chat
        session's :attr:`~desktop_agent.core.session.ChatSession.asker`)."""
        return build_agent(settings, self.backend(settings), self.registry(settings), on_message)

    def use_store(self, store: StoreDatabase) -> None:
        """Keep the permission rules in ``store`` (loads the saved ones)."""
        attach_rules(self.permissions, store)

    def _close_backend(self) -> None:
        with self._lock:
            backend, self._backend, self._backend_key = self._backend, None, None
        if backend is not None:
            try:
                backend.close()
            except Exception:  # closing a broken client must not stop a new one
                log.warning("closing the backend failed", exc_info=True)

    def abort(self) -> None:
        """Close the HTTP client under a blocked read (a shutdown fallback; any thread)."""
        self._close_backend()

    def close(self) -> None:
        self._close_backend()
        with self._registry_lock:
            host, self._host, self._registry, self._registry_key = self._host, None, None, None
        if host is not None:
            host.close()  # the tool host's processes end with the app
        with self._lock:
            manager, self._mcp, self._mcp_key = self._mcp, None, None
            self._mcp_closed = True  # a background task asking for the servers afterwards starts none
        if manager is not None:
            manager.close()
