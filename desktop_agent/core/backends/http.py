"""The one place that builds the HTTP clients the backends talk through, on public ``httpx`` / ``httpcore`` API.

Two things ride on every connection of these clients, in :class:`_Stream`, our own ``httpcore.NetworkStream``
around the library's socket stream (handed in as ``httpcore.ConnectionPool(network_backend=...)``):

- the first-data deadline of :func:`~desktop_agent.core.backends.deadline.first_data_within`: a read is never
  allowed past it (httpx's read timeout starts again with every byte a trickling server sends);
- the stall watchdog of :mod:`desktop_agent.core.streams`: each read and write is reported to the reading
  thread's :class:`~desktop_agent.core.streams.Watch`, which shuts the socket down on Stop or when no data
  comes in time — also before the response headers arrive;
- quick acknowledgements (Linux ``TCP_QUICKACK``, set again before every read: the kernel turns it off by
  itself): a server that sends small writes with Nagle's algorithm on (Python's ``http.server``, many local
  model servers) holds each write until the last one is acknowledged, and a delayed ACK costs up to 40 ms —
  an answer's first words reached the app that late, and a quit in that time lost them (issue 23).

:class:`Transport` is an ``httpx.BaseTransport`` that sends through such a pool (httpx's own ``HTTPTransport``
takes no network backend), mapping httpcore's exceptions to httpx's as httpx does. :func:`client` is an
``httpx.Client`` on it, with the environment's proxies mounted as httpx would mount them (it mounts none by
itself once it is given a transport). The ``openai`` client is handed such a client (``OpenAI(http_client=)``),
the ``ollama`` client the same options (``ollama.Client(host, **client_options())``). :func:`mcp_client` is the
client for MCP servers over Streamable HTTP (the SDK's timeouts; no deadline: an MCP stream may stay open long).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import ssl
import urllib.request
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import httpx

from desktop_agent.core.backends.deadline import remaining
from desktop_agent.core.streams import current_watch

__all__ = [
    "MCP_READ_TIMEOUT_S",
    "MCP_TIMEOUT_S",
    "Transport",
    "client",
    "client_options",
    "environment_proxies",
    "mcp_client",
]

#: the MCP SDK's own timeouts for a remote server (``mcp.shared`` keeps them private): 30 s to connect, write
#: or wait for the pool, 300 s for the next data of a stream a server holds open
MCP_TIMEOUT_S = 30.0
MCP_READ_TIMEOUT_S = 300.0


#: Linux's quick-ACK socket option (None elsewhere)
_QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)


class _Stream(httpcore.NetworkStream):
    """A connection whose reads and writes respect the thread's first-data deadline and report to its watch."""

    def __init__(self, inner: httpcore.NetworkStream):
        self._inner = inner
        self._quick: socket.socket | None = None
        if _QUICKACK is not None:
            with contextlib.suppress(Exception):
                sock = inner.get_extra_info("socket")
                if isinstance(sock, socket.socket) and sock.type == socket.SOCK_STREAM and sock.family in (
                        socket.AF_INET, socket.AF_INET6):
                    self._quick = sock

    def _ack_at_once(self) -> None:
        """Acknowledge what the next read receives at once (the kernel may fall back to delayed ACKs)."""
        if self._quick is not None and _QUICKACK is not None:
            try:
                self._quick.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except OSError:
                self._quick = None  # closed, or not TCP after all: reads go on without

    @staticmethod
    def _bounded(timeout: float | None) -> float | None:
        left = remaining()
        if left is None:
            return timeout
        if left <= 0:
            raise httpcore.ReadTimeout("no answer before the deadline for the first data")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        timeout = self._bounded(timeout)
        self._ack_at_once()
        watch = current_watch()
        if watch is None:
            return self._inner.read(max_bytes, timeout)
        watch.reading(self._inner)
        try:
            return self._inner.read(max_bytes, timeout)
        finally:
            watch.done_reading()

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        timeout = self._bounded(timeout)
        watch = current_watch()
        if watch is None:
            self._inner.write(buffer, timeout)
            return
        watch.reading(self._inner)
        try:
            self._inner.write(buffer, timeout)
        finally:
            watch.done_reading()

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, self._bounded(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    """httpcore's own socket backend, its connections wrapped in :class:`_Stream`."""

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _mapped(exc: Exception) -> Exception | None:
    """httpx's exception for an httpcore one (the same names, the most specific first), else None."""
    for cls in type(exc).__mro__:
        if cls.__module__ == "httpcore" and isinstance(getattr(httpx, cls.__name__, None), type):
            found: type[Exception] = getattr(httpx, cls.__name__)
            return found(str(exc))
    return None


class _Body(httpx.SyncByteStream):
    """A response body read from httpcore, its failures raised as httpx's."""

    def __init__(self, inner: Iterable[bytes]):
        self._inner = inner

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self._inner
        except Exception as exc:
            mapped = _mapped(exc)
            if mapped is None:
                raise
            raise mapped from exc

    def close(self) -> None:
        close = getattr(self._inner, "close", None)  # httpcore's response streams have one
        if close is not None:
            close()


class Transport(httpx.BaseTransport):
    """An ``httpx`` transport over an ``httpcore.ConnectionPool`` whose connections are :class:`_Stream` objects.
    ``proxy``: the URL of a proxy to send everything through (http, https or socks5)."""

    def __init__(self, *, proxy: str | None = None, verify: ssl.SSLContext | bool = True,
                 limits: httpx.Limits | None = None):
        limits = limits or httpx.Limits(max_connections=100, max_keepalive_connections=20)  # httpx's defaults
        context = verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify=verify)
        self._pool = httpcore.ConnectionPool(
            ssl_context=context,
            proxy=_core_proxy(proxy) if proxy else None,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_Backend(),
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, Iterable)  # a sync client's request body
        url = request.url
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        try:
            response = self._pool.handle_request(core)
        except Exception as exc:
            mapped = _mapped(exc)
            if mapped is None:
                raise
            raise mapped from exc
        assert isinstance(response.stream, Iterable)  # a sync pool's body
        return httpx.Response(status_code=response.status, headers=response.headers, stream=_Body(response.stream),
                              extensions=response.extensions)

    def close(self) -> None:
        self._pool.close()


def _core_proxy(url: str) -> httpcore.Proxy:
    """httpcore's proxy for ``url`` read as httpx reads it: a user and password in the URL
    (``http://user:secret@proxy:3128``, percent-decoded) are sent as the proxy's credentials, not left in it."""
    proxy = httpx.Proxy(url)
    return httpcore.Proxy(
        url=httpcore.URL(scheme=proxy.url.raw_scheme, host=proxy.url.raw_host, port=proxy.url.port,
                         target=proxy.url.raw_path),
        auth=proxy.raw_auth, headers=proxy.headers.raw, ssl_context=proxy.ssl_context)


def environment_proxies() -> dict[str, str | None]:
    """The proxies of the environment (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``, and the
    system's on Windows and macOS) as httpx mount patterns → proxy URL (None: no proxy), read as httpx reads
    them for a client without a transport of its own."""
    info = urllib.request.getproxies()
    mounts: dict[str, str | None] = {}
    for scheme in ("http", "https", "all"):
        if info.get(scheme):
            url = info[scheme]
            mounts[f"{scheme}://"] = url if "://" in url else f"http://{url}"
    for host in (h.strip() for h in info.get("no", "").split(",")):
        if host == "*":
            return {}
        if not host:
            continue
        if "://" in host:
            mounts[host] = None
        elif _is_ip(host) or host.lower() == "localhost":
            mounts[f"all://[{host}]" if ":" in host else f"all://{host}"] = None
        else:  # "example.com" covers its subdomains too (curl's NO_PROXY rule)
            mounts[f"all://*{host}"] = None
    return mounts


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("/")[0])
    except ValueError:
        return False
    return True


def client_options(transport: Transport | None = None) -> dict[str, Any]:
    """The ``httpx.Client`` keyword arguments that put a client on :class:`Transport` (``transport``, to share one
    pool) with the environment's proxies each on a :class:`Transport` of its own — for a library that builds
    its client itself and passes these on (``ollama.Client(host, **client_options())``)."""
    mounts: dict[str, httpx.BaseTransport | None] = {
        pattern: Transport(proxy=url) if url else None for pattern, url in environment_proxies().items()
    }
    return {"transport": transport or Transport(), "mounts": mounts}


def client(*, timeout: httpx.Timeout | float | None = 60.0, base_url: str = "", headers: dict[str, str] | None = None,
           follow_redirects: bool = False, transport: Transport | None = None) -> httpx.Client:
    """An ``httpx.Client`` on :class:`Transport` (see :func:`client_options`)."""
    return httpx.Client(timeout=timeout, base_url=base_url, headers=headers, follow_redirects=follow_redirects,
                        **client_options(transport))


def mcp_client(headers: dict[str, str] | None = None) -> Any:
    """An ``httpx2.AsyncClient`` (the MCP SDK's HTTP library) for a server over Streamable HTTP, with the SDK's
    timeouts and ``headers``; the caller closes it."""
    import httpx2  # what the MCP SDK speaks; only loaded when a remote MCP server is used

    return httpx2.AsyncClient(timeout=httpx2.Timeout(MCP_TIMEOUT_S, read=MCP_READ_TIMEOUT_S), headers=headers)
