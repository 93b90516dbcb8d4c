"""A protected MCP server over Streamable HTTP with its own OAuth 2.1 authorization server, both from the MCP SDK
(``MCPServer`` with an ``auth_server_provider``: RFC 9728 protected-resource metadata, RFC 8414 authorization
server metadata, dynamic registration, PKCE-checked token endpoint, refresh, RFC 7009 revocation; ``/mcp`` needs a
valid bearer token). Consent is given at once: ``/authorize`` sends the browser straight back to the client's
loopback redirect with the code, the state and (RFC 9207) ``iss``.

    python -m tests.mcp_servers.oauth_protected PORT [--client-id ID]   # ID: a pre-registered public client

What a test controls (plain HTTP on the same port, no auth):
- ``POST /test/expire``: every access token issued so far expires now (the server then answers 401); with
  ``?refresh=1`` the refresh tokens are revoked too;
- ``POST /test/iss?value=URL``: the ``iss`` the next authorization responses carry (a mix-up);
- ``POST /test/deny``: the user denies access on the consent page from now on;
- ``GET /test/state``: counts (registrations, codes, refreshes, revocations) and the live tokens' count.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

ACCESS_S = 3600


class Provider:
    """An in-memory authorization server."""

    def __init__(self, issuer: str) -> None:
        self.issuer = issuer
        self.iss_sent: str | None = issuer
        self.deny = False
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.counts = {"registrations": 0, "codes": 0, "refreshes": 0, "revocations": 0}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.counts["registrations"] += 1
        self.clients[str(client_info.client_id)] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code, scopes=params.scopes or [], expires_at=time.time() + 300, client_id=str(client.client_id),
            code_challenge=params.code_challenge, redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly, resource=params.resource)
        if self.deny:  # the user pressed "Deny" on the consent page
            return construct_redirect_uri(str(params.redirect_uri), error="access_denied",
                                          error_description="The user denied access", state=params.state,
                                          iss=self.iss_sent)
        self.counts["codes"] += 1
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=self.iss_sent)

    async def load_authorization_code(self, client: OAuthClientInformationFull, code: str) -> AuthorizationCode | None:
        return self.codes.get(code)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(24)}", f"rt-{secrets.token_urlsafe(24)}"
        self.access[access] = AccessToken(token=access, client_id=client_id, scopes=scopes,
                                          expires_at=int(time.time()) + ACCESS_S, resource=resource)
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(access_token=access, token_type="Bearer", expires_in=ACCESS_S, refresh_token=refresh,
                          scope=" ".join(scopes) or None)

    async def exchange_authorization_code(self, client: OAuthClientInformationFull,
                                          authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(str(client.client_id), authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        token = self.refresh.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: OAuthClientInformationFull, refresh_token: RefreshToken,
                                     scopes: list[str]) -> OAuthToken:
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError(error="invalid_grant", error_description="refresh token revoked")
        self.counts["refreshes"] += 1
        return self._issue(str(client.client_id), scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.counts["revocations"] += 1
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    async def exchange_identity_assertion(self, *args: Any, **kwargs: Any) -> OAuthToken:
        raise TokenError(error="unsupported_grant_type")


def build(port: int, client_id: str = "") -> MCPServer:
    issuer = f"http://127.0.0.1:{port}"
    provider = Provider(issuer)
    if client_id:  # registered by hand at the authorization server, as a user's IT would
        provider.clients[client_id] = OAuthClientInformationFull(
            client_id=client_id, redirect_uris=None, token_endpoint_auth_method="none",
            grant_types=["authorization_code", "refresh_token"])
    server = MCPServer(
        "protected", auth_server_provider=provider,
        auth=AuthSettings(issuer_url=issuer, resource_server_url=f"{issuer}/mcp", validate_token_resource=False,
                          client_registration_options=ClientRegistrationOptions(enabled=True),
                          revocation_options=RevocationOptions(enabled=True)))

    @server.tool()
    def whoami() -> str:
        """Say who is signed in."""
        return "signed in"

    @server.custom_route("/test/expire", methods=["POST"])
    async def expire(request: Request) -> Response:
        for token in provider.access.values():
            token.expires_at = int(time.time()) - 1
        if request.query_params.get("refresh"):  # the refresh tokens too: the user has to sign in again
            provider.refresh.clear()
        return JSONResponse({"expired": len(provider.access)})

    @server.custom_route("/test/iss", methods=["POST"])
    async def set_iss(request: Request) -> Response:
        provider.iss_sent = request.query_params.get("value") or None
        return JSONResponse({"iss": provider.iss_sent})

    @server.custom_route("/test/deny", methods=["POST"])
    async def deny(request: Request) -> Response:
        provider.deny = True
        return JSONResponse({"deny": True})

    @server.custom_route("/test/state", methods=["GET"])
    async def state(request: Request) -> Response:
        live = sum(1 for t in provider.access.values() if t.expires_at and t.expires_at >= time.time())
        return JSONResponse({**provider.counts, "live_access_tokens": live, "refresh_tokens": len(provider.refresh)})

    return server



def _allow_any_loopback_port() -> None:
    """RFC 8252 §7.3: a native client's loopback redirect may use any port; a pre-registered client here has no
    redirect URIs of its own, so any ``http://127.0.0.1:<port>/callback`` is accepted for it."""
    original = OAuthClientInformationFull.validate_redirect_uri

    def validate(self: OAuthClientInformationFull, redirect_uri: Any) -> Any:
        if self.redirect_uris is None and redirect_uri is not None and str(redirect_uri).startswith(
                "http://127.0.0.1:"):
            return redirect_uri
        return original(self, redirect_uri)

    OAuthClientInformationFull.validate_redirect_uri = validate  # type: ignore[method-assign]


def _public_clients_may_revoke() -> None:
    """RFC 7009 §2.1 lets a public client revoke with its ``client_id`` alone; the SDK 2.3 revocation handler's
    request model makes ``client_secret`` a required (nullable) field, so a public client's revocation would be
    refused with "client_secret: Field required". Give the field its default (None) here."""
    from mcp.server.auth.handlers.revoke import RevocationRequest
    from pydantic.fields import FieldInfo

    RevocationRequest.model_fields["client_secret"] = FieldInfo(annotation=str | None, default=None)  # type: ignore[index]
    RevocationRequest.model_rebuild(force=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--client-id", default="")
    options = parser.parse_args()
    _allow_any_loopback_port()
    _public_clients_may_revoke()
    print("protected server starting", file=sys.stderr, flush=True)
    build(options.port, options.client_id).run("streamable-http", host="127.0.0.1", port=options.port)
