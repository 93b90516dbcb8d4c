"""Runs the configured MCP servers in the background and their tool calls: one asyncio loop on its own thread
holds each server's ``mcp.Client`` session open; the agent's worker calls tools through it (with timeout and
cancel, which the SDK sends to the server). A server that fails to start, or dies, is reported with the last
lines of its stderr and the others keep working; :meth:`McpManager.close` stops every server it started."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from desktop_agent.core.settings import McpServerSettings
from desktop_agent.core.tools.decorator import ToolError

if TYPE_CHECKING:
    from desktop_agent.core.mcp.tools import McpTool
    from desktop_agent.core.secrets import SecretStore

log = logging.getLogger(__name__)

STARTING, READY, FAILED, STOPPED = "starting", "ready", "failed", "stopped"
#: how many lines of a failed server's stderr are kept for the user
STDERR_LINES = 12


class McpCallFailed(ToolError):
    """A call could not be made or did not finish: the server is not ready, died, or timed out (the model reads
    the message)."""


class McpCallCancelled(McpCallFailed):
    """The user stopped the call."""


@dataclass
class ServerState:
    """What the app knows about one server, as the user sees it."""

    name: str
    state: str = STARTING
    tools: list[str] = field(default_factory=list)
    error: str = ""
    stderr: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line: ``time: ready (2 tools)``, ``files: failed — …``."""
        if self.state == READY:
            return f"{self.name}: ready ({len(self.tools)} tool{'s' if len(self.tools) != 1 else ''})"
        if self.state == FAILED:
            return f"{self.name}: failed — {self.error}"
        return f"{self.name}: {self.state}"


class _Server:
    def __init__(self, config: McpServerSettings) -> None:
        self.config = config
        self.state = ServerState(config.name)
        self.client: Any = None
        self.infos: list[Any] = []
        self.stop: asyncio.Event | None = None
        self.task: concurrent.futures.Future[None] | None = None
        self.errlog: IO[str] | None = None


class McpManager:
    """The MCP servers of ``servers`` (the enabled ones), started by :meth:`start`. ``secrets`` gives the values
    of their ``secret_env`` / ``secret_headers``. ``on_change(state)`` is called (on the manager's thread) when a
    server's state changes. Thread-safe."""

    def __init__(self, servers: list[McpServerSettings], secrets: SecretStore | None = None, *,
                 start_timeout_s: float = 30.0, call_timeout_s: float = 60.0,
                 on_change: Callable[[ServerState], None] | None = None) -> None:
        self.configs = [s for s in servers if s.enabled]
        self.secrets = secrets
        self.start_timeout_s = start_timeout_s
        self.call_timeout_s = call_timeout_s
        self.on_change = on_change
        self._servers: dict[str, _Server] = {c.name: _Server(c) for c in self.configs}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    # ---- life ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """Start every enabled server in the background; returns at once."""
        with self._lock:
            if self._thread is not None or self._closed or not self._servers:
                return
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._thread = threading.Thread(target=loop.run_forever, name="mcp-servers", daemon=True)
            self._thread.start()
        for server in self._servers.values():
            self._launch(server)

    def _launch(self, server: _Server) -> None:
        assert self._loop is not None
        server.state = ServerState(server.config.name)
        self._changed(server)
        server.task = asyncio.run_coroutine_threadsafe(self._serve(server), self._loop)

    def wait_ready(self, timeout_s: float | None = None) -> list[ServerState]:
        """Wait until no server is starting any more (or ``timeout_s`` passed); their states."""
        deadline = time.monotonic() + (self.start_timeout_s if timeout_s is None else timeout_s)
        while time.monotonic() < deadline and any(s.state.state == STARTING for s in self._servers.values()):
            time.sleep(0.05)
        return self.states()

    def restart(self, name: str) -> None:
        """Stop server ``name`` and start it again (in the background)."""
        server = self._servers[name]
        self._stop_one(server, timeout_s=5.0)
        if not self._closed:
            self._launch(server)

    def close(self, timeout_s: float = 5.0) -> None:
        """Stop every server this manager started (each is asked to exit, then killed) and the loop."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for server in self._servers.values():
            self._stop_one(server, timeout_s=timeout_s)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            if self._thread is not None:
                self._thread.join(timeout_s)
            if not self._loop.is_running():
                self._loop.close()

    def _stop_one(self, server: _Server, timeout_s: float) -> None:
        loop, stop, task = self._loop, server.stop, server.task
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if task is not None:
            with contextlib.suppress(Exception):
                task.result(timeout_s)
            if not task.done():
                task.cancel()

    # ---- what the servers offer ---------------------------------------------------------------------

    def states(self) -> list[ServerState]:
        return [ServerState(s.state.name, s.state.state, list(s.state.tools), s.state.error, list(s.state.stderr))
                for s in self._servers.values()]

    def tools(self, taken: set[str] | None = None) -> list[McpTool]:
        """The tools of every ready server, named so that none clashes with ``taken`` or another."""
        from desktop_agent.core.mcp.tools import McpTool, registry_name

        used = set(taken or ())
        out: list[McpTool] = []
        for server in self._servers.values():
            if server.state.state != READY:
                continue
            for info in server.infos:
                name = registry_name(server.config.name, str(info.name), used)
                used.add(name)
                out.append(McpTool(self, server.config.name, info, name))
        return out

    # ---- calls ---------------------------------------------------------------------------------------

    def call(self, server_name: str, tool: str, arguments: dict[str, Any], *,
             timeout_s: float | None = None, cancel: threading.Event | None = None) -> Any:
        """Call ``tool`` of server ``server_name``; its ``CallToolResult``. Raises :class:`McpCallFailed`
        (with a sentence for the model) or :class:`McpCallCancelled`."""
        server = self._servers.get(server_name)
        if server is None or server.state.state != READY or server.client is None or self._loop is None:
            state = server.state.line() if server is not None else f"{server_name}: not configured"
            raise McpCallFailed(f"the MCP server is not available ({state})")
        timeout = self.call_timeout_s if timeout_s is None else timeout_s
        future = asyncio.run_coroutine_threadsafe(server.client.call_tool(tool, arguments), self._loop)
        deadline = time.monotonic() + timeout if timeout else None
        while True:
            try:
                return future.result(timeout=0.05)
            except concurrent.futures.TimeoutError:
                if cancel is not None and cancel.is_set():
                    future.cancel()  # the SDK tells the server the request is cancelled
                    raise McpCallCancelled(f"the call of {tool} was cancelled") from None
                if deadline is not None and time.monotonic() > deadline:
                    future.cancel()
                    raise McpCallFailed(f"the MCP server {server_name} did not answer {tool} within "
                                        f"{timeout:g} s") from None
            except concurrent.futures.CancelledError:
                raise McpCallCancelled(f"the call of {tool} was cancelled") from None
            except Exception as exc:
                if _connection_closed(exc) or not self._alive(server):
                    self._fail(server, "it stopped during a call")
                    if server.stop is not None and self._loop is not None:
                        self._loop.call_soon_threadsafe(server.stop.set)  # let its session close
                    raise McpCallFailed(f"the MCP server {server_name} stopped during the call of {tool}; "
                                        "the other tools still work") from exc
                raise McpCallFailed(f"the MCP server {server_name} could not run {tool}: "
                                    f"{type(exc).__name__}: {exc}") from exc

    # ---- the loop's side -------------------------------------------------------------------------------

    async def _serve(self, server: _Server) -> None:
        from mcp import Client

        server.stop = asyncio.Event()
        try:
            transport = self._transport(server)
            async with asyncio.timeout(self.start_timeout_s):
                client = Client(transport, raise_exceptions=True)
                await client.__aenter__()
            try:
                infos: list[Any] = []
                cursor = None
                async with asyncio.timeout(self.start_timeout_s):
                    while True:
                        page = await client.list_tools(cursor=cursor)
                        infos.extend(page.tools)
                        cursor = getattr(page, "next_cursor", None)
                        if not cursor:
                            break
                server.client, server.infos = client, infos
                server.state = ServerState(server.config.name, READY, [str(i.name) for i in infos])
                self._changed(server)
                await server.stop.wait()
            finally:
                server.client = None
                with contextlib.suppress(BaseException):
                    await client.__aexit__(None, None, None)
            if server.state.state != FAILED:
                server.state = ServerState(server.config.name, STOPPED)
                self._changed(server)
        except asyncio.CancelledError:
            server.state = ServerState(server.config.name, STOPPED)
            self._changed(server)
        except TimeoutError:
            self._fail(server, f"it did not start within {self.start_timeout_s:g} s")
        except BaseException as exc:
            log.info("MCP server %s failed", server.config.name, exc_info=True)
            self._fail(server, _reason(exc))
        finally:
            if server.errlog is not None:
                with contextlib.suppress(OSError):
                    server.errlog.close()
                server.errlog = None

    def _transport(self, server: _Server) -> Any:
        from desktop_agent.core.mcp.config import secret_keys, with_secrets

        values = {}
        for key, _label in secret_keys(server.config):
            value = self.secrets.get_secret(key) if self.secrets else None
            if value:
                values[key] = value
        config = with_secrets(server.config, values)  # what the server is started with: its secrets filled in
        if config.url:
            from mcp.client.streamable_http import streamable_http_client

            headers = dict(config.headers)
            if not headers:
                return streamable_http_client(config.url)
            from mcp.shared._httpx_utils import create_mcp_http_client

            @contextlib.asynccontextmanager
            async def with_headers() -> Any:  # the SDK's own client (its timeouts), closed with the transport
                async with create_mcp_http_client(headers=headers) as http, \
                        streamable_http_client(config.url, http_client=http) as streams:
                    yield streams

            return with_headers()
        from mcp.client.stdio import StdioServerParameters, stdio_client

        env = dict(config.env)
        server.errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        params = StdioServerParameters(command=config.command, args=list(config.args), env=env or None,
                                       cwd=config.cwd or None)
        return stdio_client(params, errlog=server.errlog)

    def _alive(self, server: _Server) -> bool:
        return server.client is not None and server.task is not None and not server.task.done()

    def _fail(self, server: _Server, why: str) -> None:
        server.state = ServerState(server.config.name, FAILED, [], why, self._stderr_tail(server))
        self._changed(server)

    @staticmethod
    def _stderr_tail(server: _Server) -> list[str]:
        if server.errlog is None:
            return []
        try:
            server.errlog.flush()
            server.errlog.seek(0)
            lines = [line.rstrip() for line in server.errlog.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return []
        return lines[-STDERR_LINES:]

    def _changed(self, server: _Server) -> None:
        if self.on_change is not None:
            try:
                self.on_change(self.states()[list(self._servers).index(server.config.name)])
            except Exception:
                log.warning("MCP state listener failed", exc_info=True)


def _connection_closed(exc: BaseException) -> bool:
    """The server's connection is gone (it exited or closed its pipes)."""
    from mcp_types import CONNECTION_CLOSED

    error = getattr(exc, "error", None)
    return getattr(error, "code", None) == CONNECTION_CLOSED or "connection closed" in str(exc).lower()


def _reason(exc: BaseException) -> str:
    """A failed start in the user's words: the command is missing, the server exited, or its error."""
    inner = exc
    while isinstance(inner, BaseExceptionGroup) and inner.exceptions:
        inner = inner.exceptions[0]
    if isinstance(inner, FileNotFoundError):
        return f"the command was not found ({inner.filename or inner})"
    if isinstance(inner, PermissionError):
        return f"the command cannot be run ({inner})"
    text = str(inner).strip()
    if not text or "closed" in text.lower() or "EndOfStream" in type(inner).__name__:
        return "it exited before it was ready (see its output below)"
    return f"{type(inner).__name__}: {text}"
