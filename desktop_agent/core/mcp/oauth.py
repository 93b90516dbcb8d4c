"""Signing in to remote (Streamable HTTP) MCP servers with OAuth 2.1, on top of the MCP SDK's
``OAuthClientProvider`` (discovery of the protected resource and its authorization server, PKCE, the RFC 9207
``iss`` check, dynamic registration, refresh).

What this module adds to the SDK
--------------------------------
- **Where things live**: everything is in the OS keyring (:class:`~desktop_agent.core.secrets.SecretStore`),
  never in a file or the log. ``mcp-oauth:server:<server URL>`` says which issuer and client signed in to that
  server (and the issuer's revocation endpoint); ``mcp-oauth:client:<issuer> <client id>`` holds the client's
  registration; ``mcp-oauth:tokens:<issuer> <client id> <server URL>`` the access and refresh tokens with when
  the access token expires.
- **Client registration order**: a client the app already has for that issuer (or the client id the user pasted
  in Settings → MCP for the server), then a client ID metadata document when the app has one and the
  authorization server supports it, then dynamic registration — the SDK's order, the MCP specification's.
- **The browser step**: :func:`sign_in` opens the authorization URL (``open_url``, the window's or the
  terminal's) and catches the redirect on 127.0.0.1 with a one-shot listener (:mod:`.loopback`).
- **Silently refreshed**: a background connection (:func:`background_auth`) never opens a browser; an expired
  access token is refreshed, also when the server is the one that says it expired (a 401), and a server whose
  sign-in is gone fails with :data:`SIGN_IN_HINT`.
- **Sign out** (:func:`sign_out`) revokes the tokens where the issuer supports revocation and deletes the
  keyring entries.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from desktop_agent.core.i18n import QT_TRANSLATE_NOOP
from desktop_agent.core.mcp.loopback import LoopbackListener, SignInFailed, port_of

if TYPE_CHECKING:
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

    from desktop_agent.core.secrets import SecretStore
    from desktop_agent.core.settings import McpServerSettings

log = logging.getLogger(__name__)

#: the URL of the app's client ID metadata document (an https URL the authorization server fetches); None: the
#: app has none published, so registration goes on to a pasted client id or dynamic registration
CLIENT_METADATA_URL: str | None = None
CLIENT_NAME = "Desktop Agent"
#: how long the browser step may take before the sign-in gives up (seconds)
BROWSER_TIMEOUT_S = 300.0

SIGN_IN_HINT = QT_TRANSLATE_NOOP(
    "McpOAuth", "this server needs a sign-in: press Sign in… in Settings → MCP servers, or run "
    "`desktop-agent mcp login {name}`")


REFUSED_HINT = QT_TRANSLATE_NOOP(
    "McpOAuth", "the server refused the credentials it was given (HTTP 401 Unauthorized): check its Authorization "
    "header in Settings → MCP servers")


def unauthorized_reason(config: McpServerSettings, watch: SignInWatch | None) -> str:
    """Why a server answered 401, in the user's words: it needs a sign-in — or, when the app sends it its own
    ``Authorization`` header (an API key) and no sign-in, that key was refused."""
    signed_in = watch is not None and watch.with_sign_in
    if not signed_in and any(name.lower() == "authorization" for name in [*config.headers, *config.secret_headers]):
        return REFUSED_HINT
    return SIGN_IN_HINT.format(name=config.name)


class SignInRequired(Exception):
    """A background connection would need the browser: the user has to sign in."""


# ---- keyring ------------------------------------------------------------------------------------------------


class _FlowErrorsAreOurs(logging.Filter):
    """The SDK logs every failed OAuth flow at ERROR with a traceback ("OAuth flow error") — also "the user has to
    sign in", a declined consent or a refused mix-up, which this module reports itself in the user's words. Those
    records are kept, at INFO."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.ERROR and record.getMessage() == "OAuth flow error":
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


_SDK_LOG = logging.getLogger("mcp.client.auth.oauth2")
if not any(isinstance(f, _FlowErrorsAreOurs) for f in _SDK_LOG.filters):
    _SDK_LOG.addFilter(_FlowErrorsAreOurs())


def _record_key(url: str) -> str:
    return f"mcp-oauth:server:{url}"


def _client_key(issuer: str, client_id: str) -> str:
    return f"mcp-oauth:client:{issuer} {client_id}"


def _tokens_key(issuer: str, client_id: str, url: str) -> str:
    return f"mcp-oauth:tokens:{issuer} {client_id} {url}"


def _loads(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    with contextlib.suppress(ValueError):
        value = json.loads(text)
        if isinstance(value, dict):
            return value
    return {}


@dataclass
class SignInState:
    """What Settings → MCP and ``mcp list`` show of one server's sign-in."""

    signed_in: bool
    issuer: str = ""
    client_id: str = ""


def sign_in_state(secrets: SecretStore, url: str) -> SignInState:
    """Whether the keyring holds a sign-in (tokens) for the server at ``url``."""
    record = _loads(secrets.get_secret(_record_key(url)))
    issuer, client_id = str(record.get("issuer") or ""), str(record.get("client_id") or "")
    if not issuer or not client_id:
        return SignInState(False)
    has_tokens = bool(secrets.get_secret(_tokens_key(issuer, client_id, url)))
    return SignInState(has_tokens, issuer, client_id)


class KeyringTokenStorage:
    """The SDK's ``TokenStorage`` for the server at ``url``, kept in the OS keyring (see the module's text).
    ``fresh``: a new sign-in, which starts without the stored tokens. ``client_id``: the one the user pasted."""

    def __init__(self, secrets: SecretStore, url: str, *, client_id: str = "", fresh: bool = False,
                 redirect_uri: str = "") -> None:
        self.secrets, self.url = secrets, url
        self.pasted, self.fresh, self.redirect_uri = client_id.strip(), fresh, redirect_uri
        self.issuer_now: Callable[[], str | None] = lambda: None  # the discovered issuer (set by the provider)
        self.revocation_endpoint: Callable[[], str | None] = lambda: None
        self.token_endpoint: Callable[[], str | None] = lambda: None
        self._client: OAuthClientInformationFull | None = None
        self.expires_at: float | None = None
        #: where the token values are noted for masking in what the server's errors show (the manager's list)
        self.handed: list[str] | None = None

    def _note(self, token: OAuthToken) -> None:
        if self.handed is not None:
            for value in (token.access_token, token.refresh_token):
                if value and value not in self.handed:
                    self.handed.insert(0, value)  # a token is long: masked before any shorter secret

    # the record of which issuer and client signed in to this server
    def record(self) -> dict[str, Any]:
        return _loads(self.secrets.get_secret(_record_key(self.url)))

    def _save_record(self, issuer: str, client_id: str) -> None:
        old = self.record()
        if old.get("issuer") and old.get("client_id") and (old["issuer"], old["client_id"]) != (issuer, client_id):
            self.secrets.set_secret(_tokens_key(old["issuer"], old["client_id"], self.url), None)  # superseded
        record = {"issuer": issuer, "client_id": client_id}
        for name, now in (("revocation_endpoint", self.revocation_endpoint()),
                          ("token_endpoint", self.token_endpoint())):
            value = now or (old.get(name) if old.get("issuer") == issuer else None)
            if value:
                record[name] = str(value)
        self.secrets.set_secret(_record_key(self.url), json.dumps(record))

    def _issuer(self, client: OAuthClientInformationFull | None) -> str:
        return str(self.issuer_now() or (client.issuer if client is not None else None)
                   or self.record().get("issuer") or "")

    async def get_tokens(self) -> OAuthToken | None:
        from mcp.shared.auth import OAuthToken

        record = self.record()
        if self.fresh or not record.get("issuer") or not record.get("client_id"):
            return None
        stored = _loads(self.secrets.get_secret(_tokens_key(record["issuer"], record["client_id"], self.url)))
        if not stored.get("token"):
            return None
        try:
            token = OAuthToken.model_validate(stored["token"])
        except ValueError:
            return None
        expires_at = stored.get("expires_at")
        self.expires_at = float(expires_at) if isinstance(expires_at, int | float) else None
        self._note(token)
        return token

    async def set_tokens(self, tokens: OAuthToken) -> None:
        client = self._client or await self.get_client_info()
        if client is None:
            return
        issuer = self._issuer(client)
        key = _tokens_key(issuer, client.client_id, self.url)
        if not tokens.refresh_token and not self.fresh:  # an issuer that does not rotate it: ours stays
            previous = _loads(self.secrets.get_secret(key)).get("token") or {}
            if previous.get("refresh_token"):
                tokens = tokens.model_copy(update={"refresh_token": previous["refresh_token"]})
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        self.expires_at = expires_at
        self._note(tokens)
        self.fresh = False
        self._save_record(issuer, client.client_id)
        self.secrets.set_secret(key, json.dumps({"token": tokens.model_dump(mode="json", exclude_none=True),
                                                 "expires_at": expires_at}))
        log.info("MCP sign-in: tokens for %s stored in the keyring", self.url)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import AnyUrl

        if self._client is not None:
            return self._client
        record = self.record()
        issuer, client_id = str(record.get("issuer") or ""), str(record.get("client_id") or "")
        if self.pasted and client_id != self.pasted:
            self._client = OAuthClientInformationFull(
                client_id=self.pasted, redirect_uris=[AnyUrl(self.redirect_uri or "http://127.0.0.1/callback")],
                token_endpoint_auth_method="none", grant_types=["authorization_code", "refresh_token"],
                client_name=CLIENT_NAME)
            return self._client
        if not issuer or not client_id:
            return None
        stored = _loads(self.secrets.get_secret(_client_key(issuer, client_id)))
        if not stored:
            return None
        try:
            client = OAuthClientInformationFull.model_validate(stored)
        except ValueError:
            return None
        uris = [str(u) for u in client.redirect_uris or []]
        if self.redirect_uri and uris and self.redirect_uri not in uris and client.client_id != self.pasted \
                and client.client_id != CLIENT_METADATA_URL:
            return None  # registered for another loopback port: register again for this one
        self._client = client
        return client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._client = client_info
        issuer = self._issuer(client_info)
        if not issuer:
            return
        self.secrets.set_secret(_client_key(issuer, client_info.client_id),
                                client_info.model_dump_json(exclude_none=True))
        self._save_record(issuer, client_info.client_id)  # found again (and forgotten by sign-out) by the server

    def drop_tokens(self) -> None:
        """Delete the stored tokens (the issuer refused them); the registration stays for the next sign-in."""
        record = self.record()
        if record.get("issuer") and record.get("client_id"):
            self.secrets.set_secret(_tokens_key(record["issuer"], record["client_id"], self.url), None)

    def forget(self) -> None:
        """Delete this server's sign-in from the keyring (its tokens, its client's registration, the record)."""
        record = self.record()
        issuer, client_id = str(record.get("issuer") or ""), str(record.get("client_id") or "")
        if issuer and client_id:
            self.secrets.set_secret(_tokens_key(issuer, client_id, self.url), None)
            if client_id != self.pasted:
                self.secrets.set_secret(_client_key(issuer, client_id), None)
        self.secrets.set_secret(_record_key(self.url), None)


# ---- the SDK's provider, made to refresh on a 401 and to stay out of the browser in the background ----------


def _provider_class() -> type:
    from mcp.client.auth import OAuthClientProvider

    class AppOAuthProvider(OAuthClientProvider):
        """The SDK's provider with the absolute expiry from the keyring (so a token that expired while the app
        was closed is refreshed before it is sent) and one refresh tried before the browser when the server
        answers 401 (its token expired or was revoked early)."""

        storage: KeyringTokenStorage

        def __init__(self, server_url: str, client_metadata: Any, storage: KeyringTokenStorage,
                     **kwargs: Any) -> None:
            super().__init__(server_url, client_metadata, storage, **kwargs)
            self.storage = storage
            self._refresh_on_401 = True
            self._refreshing = False
            storage.issuer_now = self._issuer_now
            storage.revocation_endpoint = self._revocation_endpoint
            storage.token_endpoint = self._token_endpoint

        def _issuer_now(self) -> str | None:
            meta = self.context.oauth_metadata
            return str(meta.issuer) if meta is not None else None

        def _revocation_endpoint(self) -> str | None:
            meta = self.context.oauth_metadata
            return str(meta.revocation_endpoint) if meta is not None and meta.revocation_endpoint else None

        def _token_endpoint(self) -> str | None:
            meta = self.context.oauth_metadata
            return str(meta.token_endpoint) if meta is not None else None

        async def _refresh_token(self) -> Any:
            """The SDK's refresh request — sent to the issuer's token endpoint from the keyring when this process
            has not discovered it yet (a token that expired while the app was closed), not to the resource
            server's origin, which the SDK would guess."""
            request = await super()._refresh_token()
            stored = self.storage.record().get("token_endpoint")
            if self.context.oauth_metadata is None and stored and str(request.url) != stored:
                import httpx2

                headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
                request = httpx2.Request("POST", stored, headers=headers, content=request.content)
            return request

        async def _initialize(self) -> None:
            await super()._initialize()
            if self.context.current_tokens is not None and self.storage.expires_at is not None:
                self.context.token_expiry_time = self.storage.expires_at

        async def _perform_authorization(self) -> Any:
            if self._refresh_on_401 and self.context.can_refresh_token():
                self._refresh_on_401 = False  # once per answer
                self._refreshing = True
                log.info("MCP sign-in: the server refused the access token; refreshing it")
                return await self._refresh_token()
            return await super()._perform_authorization()

        async def _handle_refresh_response(self, response: Any) -> bool:
            refreshed = bool(await super()._handle_refresh_response(response))
            if not refreshed and response.status_code in (400, 401):  # refused (not a passing failure): useless
                self.storage.drop_tokens()
            return refreshed

        async def _handle_token_response(self, response: Any) -> None:
            refreshing, self._refreshing = self._refreshing, False
            if refreshing and response.status_code in (400, 401):  # the issuer no longer honours the sign-in
                log.info("MCP sign-in: the issuer refused the refresh (HTTP %s); a new sign-in is needed",
                         response.status_code)
                self.context.clear_tokens()
                self.storage.drop_tokens()
                raise SignInRequired(SIGN_IN_HINT)
            await super()._handle_token_response(response)
            self._refresh_on_401 = True

    return AppOAuthProvider


def _client_metadata(redirect_uri: str) -> Any:
    from mcp.shared.auth import OAuthClientMetadata
    from pydantic import AnyUrl

    return OAuthClientMetadata(client_name=CLIENT_NAME, redirect_uris=[AnyUrl(redirect_uri)],
                               grant_types=["authorization_code", "refresh_token"], response_types=["code"],
                               token_endpoint_auth_method="none")


def _make_provider(config: McpServerSettings, storage: KeyringTokenStorage, redirect_uri: str,
                   redirect_handler: Callable[[str], Awaitable[None]],
                   callback_handler: Callable[[], Awaitable[Any]]) -> Any:
    cls = _provider_class()
    return cls(config.url, _client_metadata(redirect_uri), storage=storage, redirect_handler=redirect_handler,
               callback_handler=callback_handler, client_metadata_url=CLIENT_METADATA_URL)


def background_auth(config: McpServerSettings, secrets: SecretStore | None, handed: list[str] | None = None) -> Any:
    """The ``httpx2.Auth`` a background connection to ``config`` uses: the stored sign-in, refreshed silently;
    None when the server has no sign-in (it is then reached without one; a 401 says to sign in). The tokens it
    sends are added to ``handed`` (what is masked in the server's errors)."""
    if secrets is None or not config.url or not sign_in_state(secrets, config.url).signed_in:  # config: resolved
        return None
    storage = KeyringTokenStorage(secrets, config.url, client_id=config.oauth_client_id)
    storage.handed = handed

    async def no_browser(_url: str) -> None:
        raise SignInRequired(SIGN_IN_HINT)

    async def no_callback() -> Any:
        raise SignInRequired(SIGN_IN_HINT)

    return _make_provider(config, storage, "http://127.0.0.1/callback", no_browser, no_callback)


class SignInWatch:
    """Watches the answers of an ``httpx2.AsyncClient``: :attr:`wanted` is True while the last one was a 401 (the
    SDK's transport turns it into a bare "error response", so this is how a failed start learns why)."""

    def __init__(self, http: Any) -> None:
        self.wanted = False
        self.with_sign_in = http.auth is not None  # the stored sign-in is used (see background_auth)
        http.event_hooks = {**http.event_hooks, "response": [*http.event_hooks.get("response", []), self._seen]}

    async def _seen(self, response: Any) -> None:
        self.wanted = response.status_code == 401


def needs_sign_in(exc: BaseException, watch: SignInWatch | None = None) -> bool:
    """``exc`` (from a failed start) means the server wants a sign-in the app does not have."""
    if watch is not None and watch.wanted:
        return True
    seen: list[BaseException] = [exc]
    while seen:
        inner = seen.pop()
        if isinstance(inner, SignInRequired):
            return True
        if isinstance(inner, BaseExceptionGroup):
            seen.extend(inner.exceptions)
        response = getattr(inner, "response", None)
        if getattr(response, "status_code", None) == 401:
            return True
        if "401 Unauthorized" in str(inner):
            return True
        for nested in (inner.__cause__, inner.__context__):
            if nested is not None and nested not in seen:
                seen.append(nested)
    return False


# ---- signing in and out ---------------------------------------------------------------------------------


def _reason(exc: BaseException, url: str) -> str:
    """A failed sign-in in the user's words."""
    from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError

    seen = [exc]
    while seen:
        inner = seen.pop()
        if isinstance(inner, SignInFailed):
            return inner.args[0] if inner.args and isinstance(inner.args[0], str) else str(inner)
        if isinstance(inner, BaseExceptionGroup):
            seen.extend(inner.exceptions)
            continue
        text = str(inner)
        if isinstance(inner, OAuthFlowError) and "iss mismatch" in text:
            got, _, expected = text.partition(": ")[2].partition(" != ")
            return QT_TRANSLATE_NOOP(
                "McpOAuth", "the sign-in was refused: the answer came from {got}, not from the authorization server "
                "{expected} the server named (a possible mix-up attack); nothing was saved").format(
                        got=got or "?", expected=expected or "?")
        if isinstance(inner, OAuthFlowError) and "issuer mismatch" in text:
            return QT_TRANSLATE_NOOP(
                "McpOAuth", "the sign-in was refused: the authorization server's metadata names another issuer "
                "({text})").format(text=text)
        if isinstance(inner, OAuthRegistrationError):
            return QT_TRANSLATE_NOOP(
                "McpOAuth", "the authorization server would not register the app ({text}); paste a client id for "
                "this server in Settings → MCP servers").format(text=text)
        if isinstance(inner, OAuthTokenError | OAuthFlowError):
            return QT_TRANSLATE_NOOP("McpOAuth", "the sign-in failed: {text}").format(text=text)
        if type(inner).__name__ in ("ConnectError", "ConnectTimeout"):
            return QT_TRANSLATE_NOOP("McpOAuth", "can't reach the server at {url}").format(url=url)
        for nested in (inner.__cause__, inner.__context__):
            if nested is not None:
                seen.append(nested)
    return QT_TRANSLATE_NOOP("McpOAuth", "the sign-in failed: {kind}: {text}").format(kind=type(exc).__name__,
                                                                      text=str(exc) or "-")


@dataclass
class SignInResult:
    ok: bool
    message: str
    tools: int = 0


def with_server_secrets(config: McpServerSettings, secrets: SecretStore) -> McpServerSettings:
    """``config`` with its secrets from the keyring filled in (its headers, a URL with credentials): what the
    server is reached with, as the manager does."""
    from desktop_agent.core.mcp.config import secret_keys, with_secrets

    values = {key: value for key, _label in secret_keys(config) if (value := secrets.get_secret(key))}
    return with_secrets(config, values)


async def sign_in_async(config: McpServerSettings, secrets: SecretStore, open_url: Callable[[str], Any], *,
                        timeout_s: float = BROWSER_TIMEOUT_S, on_waiting: Callable[[], None] | None = None,
                        cancel: threading.Event | None = None) -> SignInResult:
    """Sign in to the server of ``config`` (a Streamable HTTP one): discovery, registration, the browser
    (``open_url(url)``) and the redirect caught on 127.0.0.1, the tokens into the keyring; then the server's tools
    are listed with them to prove it. ``on_waiting()`` is called when the browser has been opened; ``cancel`` set
    while it is open gives up."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.auth import AuthorizationCodeResult

    from desktop_agent.core.backends.http import mcp_client

    if not config.url:
        return SignInResult(False, QT_TRANSLATE_NOOP(
            "McpOAuth", "only a remote (Streamable HTTP) server can be signed in to"))
    config = with_server_secrets(config, secrets)
    old = KeyringTokenStorage(secrets, config.url, client_id=config.oauth_client_id)
    stored = await old.get_client_info()
    preferred = port_of(str(stored.redirect_uris[0])) if stored is not None and stored.redirect_uris else 0
    listener = await LoopbackListener().open(preferred)
    storage = KeyringTokenStorage(secrets, config.url, client_id=config.oauth_client_id, fresh=True,
                                  redirect_uri=listener.redirect_uri)

    async def redirect_handler(url: str) -> None:
        log.info("MCP sign-in: opening the browser at the authorization server %s", urlsplit(url).netloc)
        # on its own thread: a browser command (``$BROWSER``) may not return until that browser exits, and this
        # loop has to answer the redirect meanwhile
        threading.Thread(target=open_url, args=(url,), name="mcp-sign-in-browser", daemon=True).start()
        if on_waiting is not None:
            on_waiting()

    async def callback_handler() -> AuthorizationCodeResult:
        query = await listener.wait(timeout_s, cancel)
        if "error" in query:
            raise SignInFailed(QT_TRANSLATE_NOOP(
                "McpOAuth", "the authorization server said no: {error}{detail}").format(
                error=query["error"], detail=f" ({query['error_description']})" if query.get(
                    "error_description") else ""))
        if not query.get("code"):
            raise SignInFailed(QT_TRANSLATE_NOOP(
                "McpOAuth", "the authorization server sent the browser back without a code"))
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))

    provider = _make_provider(config, storage, listener.redirect_uri, redirect_handler, callback_handler)
    provider._refresh_on_401 = False  # a sign-in always asks the user
    try:
        async with mcp_client(dict(config.headers) or None) as http:
            http.auth = provider

            @contextlib.asynccontextmanager
            async def transport() -> Any:
                async with streamable_http_client(config.url, http_client=http) as streams:
                    yield streams

            async with Client(transport(), raise_exceptions=True) as client:
                listed = await client.list_tools()
        count = len(listed.tools)
        if storage.fresh:  # it never asked: nothing to sign in to
            return SignInResult(True, QT_TRANSLATE_NOOP(
                "McpOAuth", "{name} does not ask for a sign-in: it works without one").format(name=config.name), count)
        log.info("MCP sign-in: signed in to %s (%d tools)", config.name, count)
        return SignInResult(True, QT_TRANSLATE_NOOP("McpOAuth", "signed in to {name}; tools it offers: {n}").format(
            name=config.name, n=count), count)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | asyncio.CancelledError):
            raise
        log.info("MCP sign-in to %s failed: %s", config.name, type(exc).__name__)
        return SignInResult(False, _reason(exc, config.url))
    finally:
        await listener.close()


def sign_in(config: McpServerSettings, secrets: SecretStore, open_url: Callable[[str], Any], **kwargs: Any) \
        -> SignInResult:
    """:func:`sign_in_async` on its own event loop (from a terminal command or a worker thread)."""
    return asyncio.run(sign_in_async(config, secrets, open_url, **kwargs))


def sign_out(config: McpServerSettings, secrets: SecretStore, *, timeout_s: float = 10.0) -> str:
    """Revoke the server's tokens at its issuer (when it offers revocation) and delete them and the sign-in from
    the keyring; a line saying what was done."""
    config = with_server_secrets(config, secrets)
    storage = KeyringTokenStorage(secrets, config.url, client_id=config.oauth_client_id)
    record = storage.record()
    issuer, client_id = str(record.get("issuer") or ""), str(record.get("client_id") or "")
    if not issuer or not client_id:
        storage.forget()
        return QT_TRANSLATE_NOOP("McpOAuth", "{name} was not signed in").format(name=config.name)
    stored = _loads(secrets.get_secret(_tokens_key(issuer, client_id, config.url))).get("token") or {}
    endpoint = str(record.get("revocation_endpoint") or "")
    revoked = ""
    if endpoint and stored:
        import httpx2

        client = _loads(secrets.get_secret(_client_key(issuer, client_id)))
        data_auth: dict[str, str] = {"client_id": client_id}
        headers: dict[str, str] = {}
        secret = client.get("client_secret")
        if secret and client.get("token_endpoint_auth_method") == "client_secret_basic":
            import base64
            from urllib.parse import quote

            pair = f"{quote(client_id, safe='')}:{quote(secret, safe='')}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
        elif secret:
            data_auth["client_secret"] = secret
        failures = 0
        try:
            with httpx2.Client(timeout=timeout_s) as http:
                for kind in ("refresh_token", "access_token"):
                    if stored.get(kind):
                        answer = http.post(endpoint, data={"token": stored[kind], "token_type_hint": kind,
                                                           **data_auth}, headers=headers)
                        if answer.status_code != 200:
                            failures += 1
                            log.info("MCP sign-out: the issuer answered the revocation with HTTP %s: %s",
                                     answer.status_code, answer.text[:200])
        except Exception as exc:
            log.info("MCP sign-out: revocation at %s failed: %s", urlsplit(endpoint).netloc, type(exc).__name__,
                     exc_info=True)
            failures += 1
        revoked = "revoked" if not failures else "unconfirmed"
    storage.forget()
    if revoked == "revoked":
        return QT_TRANSLATE_NOOP("McpOAuth", "signed out of {name} and revoked its tokens").format(name=config.name)
    if revoked:
        return QT_TRANSLATE_NOOP(
            "McpOAuth", "signed out of {name} (the authorization server did not confirm the revocation)").format(
            name=config.name)
    return QT_TRANSLATE_NOOP("McpOAuth", "signed out of {name}").format(name=config.name)
