"""Runs the configured MCP servers in the background and their tool calls: one asyncio loop on its own thread
holds each server's ``mcp.Client`` session open; the agent's worker calls tools through it (with timeout and
cancel, which the SDK sends to the server, and the server's progress reports passed on). A server's
``tools/list_changed`` makes it list its tools again (``on_change`` tells the app). A server that fails to start,
or dies, is reported with the last lines of its stderr and the others keep working; :meth:`McpManager.close`
stops every server it started."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import tempfile
import threading
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from desktop_agent.core.mcp.elicitation import CallRoute, elicitation_callback
from desktop_agent.core.mcp.revival import Revival, Reviving, revivable
from desktop_agent.core.mcp.states import (
    FAILED,
    READY,
    STARTING,
    STOPPED,
    McpCallCancelled,
    McpCallFailed,
    ServerState,
)
from desktop_agent.core.settings import McpServerSettings

if TYPE_CHECKING:
    from desktop_agent.core.mcp.tools import McpTool
    from desktop_agent.core.secrets import SecretStore

log = logging.getLogger(__name__)

#: how many lines of a failed server's stderr are kept for the user
STDERR_LINES = 12
#: while no call is running, a ready server is asked for its tool list this often (seconds; a remote one less
#: often): one that exited or stopped answering is reported as failed even when nothing calls it
HEARTBEAT_S = 5.0
REMOTE_HEARTBEAT_S = 30.0
#: a server's tools are listed again at most this often however many ``tools/list_changed`` it sends (seconds)
RELIST_EVERY_S = 1.0
#: what :meth:`McpManager.wait_ready` waits beyond the start timeout by default: finding the command (the login
#: shell's PATH is read once, within its own timeout) comes before the start timeout counts
START_MARGIN_S = 5.0
#: how long that request may take before the server counts as not answering
PING_TIMEOUT_S = 15.0

#: what a call reports while it runs: ``(progress, total or None, message or None)`` (any thread may call it)
Progress = Callable[[float, float | None, str | None], None]


class _ListingHung(Exception):
    """The server answered the handshake but not ``tools/list`` in time."""


def _copy(state: ServerState) -> ServerState:
    return ServerState(state.name, state.state, list(state.tools), state.error, list(state.stderr),
                       list(state.notices), state.protocol)


class _Server:
    def __init__(self, config: McpServerSettings) -> None:
        self.config = config
        self.state = ServerState(config.name)
        self.client: Any = None
        self.infos: list[Any] = []
        self.stop: asyncio.Event | None = None
        self.task: concurrent.futures.Future[None] | None = None
        self.errlog: IO[str] | None = None
        #: the listing a ``tools/list_changed`` started; ``stale``: one came before the server was ready
        self.relisting: asyncio.Future[None] | None = None
        self.stale = False
        #: another change came while listing (listed again once more); when the tools were last listed (loop time)
        self.relist_again = False
        self.last_listed = 0.0
        #: the first line it wrote on stdout that is not MCP, while starting
        self.noise = ""
        #: calls running now (counted on the manager's loop)
        self.calls = 0
        #: set when its session has ended (the process is gone); ``began``: its session started
        self.finished = threading.Event()
        self.began = False
        #: a remote server's last answer was "sign in first" (a 401): see core/mcp/oauth.py
        self.sign_in: Any = None
        #: every secret value the app handed this server (env, headers, arguments, its URL's credentials): masked
        #: wherever the server's output or errors are shown
        self.handed: list[str] = []
        #: what its last tool list needed (repairs, tools left out)
        self.notices: list[str] = []
        #: the calls running now (tool, where its questions go): a server's question goes to the newest
        self.routes: list[tuple[str, CallRoute]] = []
        #: when the tool list the server let us keep (its ``ttlMs``) goes stale (monotonic; None: not cached)
        self.list_expires: float | None = None
        #: whether it died and may be started again on its next call (see :mod:`.revival`)
        self.revival = Revival()


class McpManager(Reviving):
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
        server.state, server.revival.halted = ServerState(server.config.name), False
        server.finished, server.began = threading.Event(), False
        self._changed(server)
        server.task = asyncio.run_coroutine_threadsafe(self._serve(server), self._loop)

    def wait_ready(self, timeout_s: float | None = None, cancel: threading.Event | None = None) -> list[ServerState]:
        """Wait until no server is starting any more (or ``timeout_s`` passed, or ``cancel`` is set); their
        states."""
        # by default the start timeout, and the moment finding the command may take (the login shell, read once)
        deadline = time.monotonic() + (self.start_timeout_s + START_MARGIN_S if timeout_s is None else timeout_s)
        while time.monotonic() < deadline and self.starting():
            if cancel is not None and cancel.wait(0.05):
                break
            if cancel is None:
                time.sleep(0.05)
        return self.states()

    def starting(self) -> list[str]:
        """The names of the servers still starting."""
        return [s.config.name for s in self._servers.values() if s.state.state == STARTING]

    def restart(self, name: str) -> None:
        """Stop server ``name`` and start it again (in the background)."""
        server = self._servers[name]
        self._stop_one(server, timeout_s=5.0)
        server.revival.reset()
        if not self._closed:
            self._launch(server)

    def reconfigure(self, servers: list[McpServerSettings], *, start_timeout_s: float | None = None,
                    call_timeout_s: float | None = None) -> list[str]:
        """Take ``servers`` (the enabled ones) as the configuration: a server removed or changed is stopped, one
        added or changed is started; the others go on as they are (their sessions, calls and tools untouched).
        Returns the names of the servers (re)started."""
        if start_timeout_s is not None:
            self.start_timeout_s = start_timeout_s
        if call_timeout_s is not None:
            self.call_timeout_s = call_timeout_s
        configs = [s for s in servers if s.enabled]
        with self._lock:
            old = dict(self._servers)
            kept = {c.name: old[c.name] for c in configs if c.name in old and old[c.name].config == c}
            fresh = {c.name: _Server(c) for c in configs if c.name not in kept}
            self.configs = configs
            self._servers = {c.name: kept.get(c.name) or fresh[c.name] for c in configs}
            running = self._thread is not None and not self._closed
        for name, server in old.items():
            if kept.get(name) is not server:
                self._stop_one(server, timeout_s=5.0)
        if running:
            for server in fresh.values():
                self._launch(server)
        else:
            self.start()
        return list(fresh)

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
        """Stop ``server`` and wait until its session and process are gone. A server still starting cannot hear
        the stop, so its start is cancelled (the SDK still ends its process); one that does not end within
        ``timeout_s`` is cancelled too."""
        loop, task = self._loop, server.task
        server.revival.halted = True
        if loop is None or task is None or loop.is_closed():
            return
        stop = server.stop
        if stop is not None:
            loop.call_soon_threadsafe(stop.set)
        if stop is None or server.state.state == STARTING:
            task.cancel()
        if not self._ended(server, timeout_s):
            task.cancel()
            self._ended(server, timeout_s)

    @staticmethod
    def _ended(server: _Server, timeout_s: float) -> bool:
        """Wait for ``server``'s session to end; True when it did (or was cancelled before it began)."""
        start = time.monotonic()
        while not server.finished.wait(0.05):
            now = time.monotonic()
            if now - start > 0.3 and server.task is not None and server.task.done() and not server.began:
                return True  # cancelled before it ran (the loop had time to run it): nothing was started
            if now - start > timeout_s:
                return False
        return True

    # ---- what the servers offer ---------------------------------------------------------------------

    def states(self) -> list[ServerState]:
        return [_copy(s.state) for s in list(self._servers.values())]

    def tools(self, taken: set[str] | None = None) -> list[McpTool]:
        """The tools of every ready server, named so that none clashes with ``taken`` or another."""
        from desktop_agent.core.mcp.tools import McpTool, registry_name, server_identity

        used = set(taken or ())
        out: list[McpTool] = []
        for server in self._servers.values():
            if server.state.state != READY and not revivable(server):  # a dead one's tools start it again
                continue
            for info in server.infos:
                name = registry_name(server.config.name, str(info.name), used)
                used.add(name)
                out.append(McpTool(self, server.config.name, info, name, server_identity(server.config)))
        return out

    # ---- calls ---------------------------------------------------------------------------------------

    def call(self, server_name: str, tool: str, arguments: dict[str, Any], *,
             timeout_s: float | None = None, cancel: threading.Event | None = None,
             progress: Progress | None = None, route: CallRoute | None = None) -> Any:
        """Call ``tool`` of server ``server_name``; its ``CallToolResult``. ``progress`` gets the server's progress
        notifications of this call (on the manager's thread); ``route`` says where the server's questions during
        the call go (None: they are declined) — the time the user takes to answer does not count against the
        timeout. Raises :class:`McpCallFailed` (with a sentence for
        the model) or :class:`McpCallCancelled`."""
        server = self._servers.get(server_name)
        if server is not None and self._loop is not None:
            self._revive(server, cancel)  # one that died is started again (bounded, with backoff)
        if server is None or server.state.state != READY or server.client is None or self._loop is None:
            state = server.state.line() if server is not None else f"{server_name}: not configured"
            raise McpCallFailed(f"the MCP server is not available ({state})")
        timeout = self.call_timeout_s if timeout_s is None else timeout_s
        on_progress = _progress_callback(progress) if progress is not None else None
        entry = (tool, route if route is not None else CallRoute(None, cancel=cancel))
        if entry[1].cancel is None:
            entry[1].cancel = cancel
        server.routes.append(entry)
        try:
            future = asyncio.run_coroutine_threadsafe(
                self._counted(server, server.client.call_tool(tool, arguments, progress_callback=on_progress)),
                self._loop)
            return self._wait_call(server, server_name, tool, future, timeout, cancel, entry[1])
        finally:
            with contextlib.suppress(ValueError):
                server.routes.remove(entry)

    def _wait_call(self, server: _Server, server_name: str, tool: str, future: concurrent.futures.Future[Any],
                   timeout: float, cancel: threading.Event | None, route: CallRoute) -> Any:
        deadline = time.monotonic() + timeout if timeout else None
        last = time.monotonic()
        while True:
            now = time.monotonic()
            if route.waiting and deadline is not None:
                deadline += now - last  # the user answering a question is not the server's time
            last = now
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
                    raise McpCallFailed(f"the MCP server {server_name} stopped during the call of {tool}; it is "
                                        "started again on its next call; the other tools still work") from exc
                from desktop_agent.core.mcp.masking import mask

                raise McpCallFailed(f"the MCP server {server_name} could not run {tool}: "
                                    f"{type(exc).__name__}: {mask(str(exc), server.handed)}") from exc

    # ---- the loop's side -------------------------------------------------------------------------------

    async def _serve(self, server: _Server) -> None:
        from mcp import Client

        server.began = True
        server.stop = asyncio.Event()
        server.stale, server.noise = False, ""
        try:
            # off the loop: the keyring and the login shell's PATH (read once) may take a moment
            transport = await asyncio.to_thread(self._transport, server)
            # one bound for the handshake and the tool list together: the start timeout is the whole start's
            deadline = asyncio.get_running_loop().time() + self.start_timeout_s
            async with asyncio.timeout_at(deadline):
                client = Client(transport, raise_exceptions=True, message_handler=self._listener(server),
                                elicitation_callback=elicitation_callback(
                                    server.config.name, lambda: _route(server), self.secrets))
                await client.__aenter__()
            try:
                try:
                    async with asyncio.timeout_at(deadline):
                        infos = await _list_tools(client, server)
                except TimeoutError:
                    raise _ListingHung from None
                server.client, server.infos = client, infos
                server.state = ServerState(server.config.name, READY, [str(i.name) for i in infos],
                                           notices=list(server.notices),
                                           protocol=str(getattr(client, "protocol_version", "") or ""))
                server.revival.was_up = True
                self._changed(server)
                if server.stale:
                    await self._relist(server)
                watchers: list[asyncio.Future[None]] = [asyncio.ensure_future(self._watch(server, client)),
                            asyncio.ensure_future(self._heartbeat(server, client)),
                            asyncio.ensure_future(self._expiry(server, client))]
                try:
                    await server.stop.wait()
                finally:
                    if server.relisting is not None:  # a paced listing waiting for its second
                        watchers.append(server.relisting)
                    for watcher in watchers:
                        watcher.cancel()
                        with contextlib.suppress(BaseException):
                            await watcher
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
        except _ListingHung:
            self._fail(server, f"it answered the MCP handshake but not the request for its tools (tools/list) "
                               f"within {self.start_timeout_s:g} s; it may be waiting for something (a sign-in, a "
                               "download, a database): see its output, then Restart it to try again")
        except TimeoutError:
            why = f"it did not start within {self.start_timeout_s:g} s"
            if server.noise:
                why += f"; it wrote something that is not MCP on its output: {server.noise!r}"
            else:
                why += (" (it never answered the MCP handshake): check that the command starts an MCP server on "
                        "stdio (some need an argument such as 'stdio'), then Restart it to try again")
            self._fail(server, why)
        except BaseException as exc:
            log.info("MCP server %s failed", server.config.name, exc_info=True)
            from desktop_agent.core.mcp.oauth import needs_sign_in, unauthorized_reason

            self._fail(server, unauthorized_reason(server.config, server.sign_in) if server.config.url
                       and needs_sign_in(exc, server.sign_in) else _reason(exc, server.config.url))
        finally:
            if server.errlog is not None:
                with contextlib.suppress(OSError):
                    server.errlog.close()
                server.errlog = None
            server.finished.set()

    def _transport(self, server: _Server) -> Any:
        from desktop_agent.core.mcp.config import secret_keys, with_secrets
        from desktop_agent.core.mcp.listing import repaired
        from desktop_agent.core.mcp.masking import handed_secrets

        values = {}
        for key, _label in secret_keys(server.config):
            value = self.secrets.get_secret(key) if self.secrets else None
            if value:
                values[key] = value
        config = with_secrets(server.config, values)  # what the server is started with: its secrets filled in
        server.handed = handed_secrets(config, values.values())
        if config.url:
            from mcp.client.streamable_http import streamable_http_client

            from desktop_agent.core.backends.http import mcp_client

            headers = dict(config.headers) or None

            @contextlib.asynccontextmanager
            async def with_client() -> Any:  # our client (the SDK's timeouts), closed with the transport
                from desktop_agent.core.mcp.oauth import SignInWatch, background_auth

                async with mcp_client(headers) as http:
                    http.auth = background_auth(config, self.secrets, server.handed)  # its sign-in, if any
                    server.sign_in = SignInWatch(http)  # tells a failed start that wants a sign-in
                    async with streamable_http_client(config.url, http_client=http) as streams:
                        yield streams

            return repaired(with_client(), server.notices)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        from desktop_agent.core.mcp.launch import resolve, server_environment, working_dir

        # found on the login shell's PATH and the usual places too; a missing one says what to install
        command = resolve(config.command, cwd=config.cwd)
        env = server_environment(dict(config.env))
        server.errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        params = StdioServerParameters(command=command, args=list(config.args), env=env,
                                       cwd=working_dir(config.cwd))
        return repaired(stdio_client(params, errlog=server.errlog), server.notices)

    def _listener(self, server: _Server) -> Any:
        """The SDK message handler of ``server``'s session: a ``tools/list_changed`` lists its tools again."""
        from mcp_types import ToolListChangedNotification

        async def handle(message: Any) -> None:
            if isinstance(message, Exception) and server.state.state == STARTING and not server.noise:
                server.noise = _unreadable_line(message)  # said if it never gets ready
            if isinstance(message, ToolListChangedNotification):
                # not awaited here: the session's reader must go on (the listing's answer comes through it)
                self._tools_changed(server)

        return handle

    async def _watch(self, server: _Server, client: Any) -> None:
        """On a 2026-07-28 connection a server says its tools changed only to a ``subscriptions/listen`` stream:
        listen, and list the tools again on each change (older connections: :meth:`_listener` gets the
        notification). A stream the server does not offer, or that drops, costs only the updates."""
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if getattr(client, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS:
            return
        try:
            async with client.listen(tools_list_changed=True) as changes:
                async for _change in changes:
                    self._tools_changed(server)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.info("MCP server %s: no tool list changes (listen failed)", server.config.name, exc_info=True)

    @staticmethod
    async def _counted(server: _Server, call: Any) -> Any:
        server.calls += 1
        try:
            return await call
        finally:
            server.calls -= 1

    async def _expiry(self, server: _Server, client: Any) -> None:
        """A tool list the server let us keep for a time (2026-07-28 ``ttlMs``) is listed again once that time is
        up, so the tools offered follow the server's changes even without a change notification."""
        assert server.stop is not None
        while not server.stop.is_set() and server.client is client:
            expires = server.list_expires
            if expires is not None and time.monotonic() >= expires:
                server.list_expires = None
                await self._relist(server)
            await asyncio.sleep(0.25)

    async def _heartbeat(self, server: _Server, client: Any) -> None:
        """Check the ready server while it is idle: one that exited, was killed or hangs is reported failed (with
        its last stderr lines) at once, not at the next call. The check is a ``tools/list`` past the SDK's cache
        (the 2026-07-28 protocol has no ping); any answer, an error too, means it is there. A running call is left
        alone — a server busy with it may not answer."""
        from mcp import MCPError

        assert server.stop is not None
        every = REMOTE_HEARTBEAT_S if server.config.url else HEARTBEAT_S
        while not server.stop.is_set():
            await asyncio.sleep(every)
            if server.calls or server.stop.is_set() or server.client is not client:
                continue
            try:
                async with asyncio.timeout(PING_TIMEOUT_S):
                    await client.list_tools(cache_mode="refresh")
                continue
            except asyncio.CancelledError:
                raise
            except TimeoutError:
                why = f"it stopped answering (nothing for {PING_TIMEOUT_S:g} s)"
            except Exception as exc:
                if isinstance(exc, MCPError) and not _connection_closed(exc):
                    continue  # it answered, with an error
                log.info("MCP server %s: its check failed", server.config.name, exc_info=True)
                why = "it exited or closed its connection" if _connection_closed(exc) else f"it failed: {exc}"
            if server.calls or server.stop.is_set():
                continue
            self._fail(server, why)
            server.stop.set()
            return

    def _tools_changed(self, server: _Server) -> None:
        """The server said its tools changed: list them again — at once, and a storm of such notices at most once
        every :data:`RELIST_EVERY_S` (the last change is always listed)."""
        if server.relisting is not None and not server.relisting.done():
            server.relist_again = True
            return
        server.relisting = asyncio.ensure_future(self._relist_paced(server))

    async def _relist_paced(self, server: _Server) -> None:
        loop = asyncio.get_running_loop()
        while True:
            wait = server.last_listed + RELIST_EVERY_S - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            server.relist_again = False
            server.last_listed = loop.time()
            await self._relist(server)
            if not server.relist_again:
                return

    async def _relist(self, server: _Server) -> None:
        client = server.client
        if client is None:  # not ready yet: listed again once it is (the first listing may be older)
            server.stale = True
            return
        server.stale = False
        try:
            async with asyncio.timeout(self.start_timeout_s):
                infos = await _list_tools(client, server, refresh=True)
        except Exception:
            log.info("MCP server %s: listing its tools again failed", server.config.name, exc_info=True)
            return
        if server.client is not client or server.state.state != READY:
            return
        server.infos = infos
        server.state = ServerState(server.config.name, READY, [str(i.name) for i in infos],
                                   notices=list(server.notices), protocol=server.state.protocol)
        self._changed(server)

    def _alive(self, server: _Server) -> bool:
        return server.client is not None and server.task is not None and not server.task.done()

    def _fail(self, server: _Server, why: str) -> None:
        from desktop_agent.core.mcp.masking import mask

        tail = [mask(line, server.handed) for line in self._stderr_tail(server)]
        if not tail:
            why = why.replace(" (see its output below)", " (it printed nothing)")
        server.state = ServerState(server.config.name, FAILED, [], mask(why, server.handed), tail)
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
        if self.on_change is not None and self._servers.get(server.config.name) is server:  # not a replaced one
            try:
                self.on_change(_copy(server.state))
            except Exception:
                log.warning("MCP state listener failed", exc_info=True)


def _route(server: _Server) -> tuple[str, CallRoute | None]:
    """The tool call of ``server`` its question belongs to (the newest running) and where it goes."""
    return server.routes[-1] if server.routes else ("", None)


async def _list_tools(client: Any, server: _Server | None = None, refresh: bool = False) -> list[Any]:
    """Every tool of ``client``'s server (all pages). A 2026-07-28 server may let the SDK cache the list for a
    time (its ``ttlMs``): ``server.list_expires`` says until when; ``refresh`` asks the server past the cache."""
    infos: list[Any] = []
    cursor = None
    while True:
        page = await client.list_tools(cursor=cursor, cache_mode="refresh" if refresh else "use")
        if cursor is None and server is not None:
            ttl_ms = getattr(page, "ttl_ms", 0) or 0
            server.list_expires = time.monotonic() + ttl_ms / 1000 if ttl_ms > 0 else None
        infos.extend(page.tools)
        cursor = getattr(page, "next_cursor", None)
        if not cursor:
            return infos


def _progress_callback(progress: Progress) -> Callable[[float, float | None, str | None], Any]:
    """``progress`` as the SDK's async progress callback; a failing listener costs only its report."""

    async def report(done: float, total: float | None, message: str | None) -> None:
        try:
            progress(done, total, message)
        except Exception:
            log.warning("MCP progress listener failed", exc_info=True)

    return report


def _unreadable_line(exc: Exception) -> str:
    """The line a server wrote that the SDK could not read as JSON-RPC (what ``exc`` says), cut to 80 characters."""
    errors = getattr(exc, "errors", None)
    text = ""
    try:
        found = errors() if callable(errors) else []
        text = str(found[0].get("input", "")) if found else ""
    except Exception:  # noqa: BLE001 — only a help for the message
        text = ""
    text = " ".join((text or str(exc)).split())
    return text if len(text) <= 80 else text[:79] + "…"


def _connection_closed(exc: BaseException) -> bool:
    """The server's connection is gone (it exited or closed its pipes)."""
    from mcp_types import CONNECTION_CLOSED

    error = getattr(exc, "error", None)
    return getattr(error, "code", None) == CONNECTION_CLOSED or "connection closed" in str(exc).lower()


def _reason(exc: BaseException, url: str = "") -> str:
    """A failed start in the user's words: the command is missing, the server exited, a remote server cannot be
    reached, or its error."""
    inner = exc
    while isinstance(inner, BaseExceptionGroup) and inner.exceptions:
        inner = inner.exceptions[0]
    from desktop_agent.core.mcp.launch import CommandNotFound

    if isinstance(inner, CommandNotFound):
        return str(inner)
    if isinstance(inner, FileNotFoundError):
        return f"the command was not found ({inner.filename or inner})"
    if isinstance(inner, PermissionError):
        return f"the command cannot be run ({inner})"
    text = str(inner).strip()
    if url and type(inner).__name__ in ("ConnectError", "ConnectTimeout"):
        return f"can't reach the server at {url} ({text or 'no connection'})"
    if not text or "closed" in text.lower() or "EndOfStream" in type(inner).__name__:
        return "it exited before it was ready (see its output below)"
    return f"{type(inner).__name__}: {text}"
