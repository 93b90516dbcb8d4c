"""The one HTTP client module (core/backends/http.py) against real 127.0.0.1 sockets: the first-data deadline
bounds a server that trickles its headers, httpcore's failures reach the caller as httpx's, and the
environment's proxies are used as httpx itself would use them (a client given a transport mounts none)."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest

from desktop_agent.core.backends import http
from desktop_agent.core.backends.deadline import first_data_within


def _serve_once(answer) -> str:
    """A server on 127.0.0.1 that gives its first connection to ``answer(conn, request_bytes)``."""
    server = socket.create_server(("127.0.0.1", 0))

    def run() -> None:
        conn, _ = server.accept()
        with conn:
            answer(conn, conn.recv(65536))
        server.close()

    threading.Thread(target=run, daemon=True).start()
    return f"http://127.0.0.1:{server.getsockname()[1]}"


def test_the_first_data_deadline_ends_a_trickling_answer():
    """One byte of the status line every 0.1 s: httpx's 30 s read timeout would never run out; the deadline does."""
    stop = threading.Event()

    def trickle(conn: socket.socket, _request: bytes) -> None:
        for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n" * 100:
            if stop.is_set():
                return
            try:
                conn.sendall(bytes([byte]))
            except OSError:
                return
            time.sleep(0.1)

    url = _serve_once(trickle)
    started = time.monotonic()
    with http.client(timeout=30) as client, pytest.raises(httpx.ReadTimeout), first_data_within(0.5):
        client.get(url)
    stop.set()
    assert time.monotonic() - started < 5


def test_a_refused_connection_is_httpxs_connect_error():
    spare = socket.create_server(("127.0.0.1", 0))
    port = spare.getsockname()[1]
    spare.close()  # nothing listens there now
    with http.client(timeout=5) as client, pytest.raises(httpx.ConnectError):
        client.get(f"http://127.0.0.1:{port}/")


def test_the_environments_proxies_are_read_as_httpx_reads_them(monkeypatch):
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
                 "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", "proxy.lan:3128")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.lan:3129")
    monkeypatch.setenv("NO_PROXY", "localhost, 10.0.0.1, ::1, example.com, https://skip.me")
    assert http.environment_proxies() == {
        "http://": "http://proxy.lan:3128",
        "https://": "http://proxy.lan:3129",
        "all://localhost": None,
        "all://10.0.0.1": None,
        "all://[::1]": None,
        "all://*example.com": None,
        "https://skip.me": None,
    }
    monkeypatch.setenv("NO_PROXY", "*")
    assert http.environment_proxies() == {}


@pytest.mark.parametrize("build", [
    lambda: http.client(timeout=10),
    lambda: httpx.Client(timeout=10, **http.client_options()),  # as ollama.Client gets them
], ids=["client", "client_options"])
def test_a_request_goes_through_the_environments_proxy(monkeypatch, build):
    """A forward proxy gets the request in absolute form and answers it: the client used the proxy."""
    seen: list[bytes] = []

    def proxy(conn: socket.socket, request: bytes) -> None:
        seen.append(request.split(b"\r\n", 1)[0])
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nproxied")

    for name in ("http_proxy", "all_proxy", "no_proxy", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", _serve_once(proxy))
    with build() as client:
        assert client.get("http://model-server.invalid/api/tags").text == "proxied"
    assert seen == [b"GET http://model-server.invalid/api/tags HTTP/1.1"]


@pytest.mark.parametrize("build", [
    lambda: http.client(timeout=10),
    lambda: httpx.Client(timeout=10, **http.client_options()),  # as ollama.Client gets them
], ids=["client", "client_options"])
def test_a_proxy_with_a_user_and_password_in_its_url_gets_them(monkeypatch, build):
    """``HTTP_PROXY=http://user:secret@proxy:3128`` (a company proxy): httpx sends the URL's user and password
    as ``Proxy-Authorization`` — without them such a proxy answers 407 to every request of the app."""
    import base64

    seen: list[bytes] = []

    def proxy(conn: socket.socket, request: bytes) -> None:
        seen.extend(line for line in request.split(b"\r\n") if line.lower().startswith(b"proxy-authorization:"))
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\nproxied")

    for name in ("http_proxy", "all_proxy", "no_proxy", "ALL_PROXY", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", _serve_once(proxy).replace("http://", "http://me:s%40cret@"))
    with build() as client:
        assert client.get("http://model-server.invalid/api/tags").text == "proxied"
    assert seen == [b"Proxy-Authorization: Basic " + base64.b64encode(b"me:s@cret")]
