"""The OAuth 2.1 client of MCP (2025-11-25 ``basic/authorization``; 2026-07-28
``basic/authorization`` with its client-registration and authorization-server-discovery pages),
as an ``httpx2.Auth`` flow: give it to the ``httpx2.AsyncClient`` of an ``HttpClientTransport``
(``HttpClientTransport(url, client=httpx2.AsyncClient(auth=OAuthClientAuth(...)))``).

Every request carries ``Authorization: Bearer <token>`` once a token is held (refreshed first when
it expires within ``refresh_skew`` seconds). On 401, or 403 with ``error="insufficient_scope"``
(step-up), it authorizes and sends the request again, at most ``max_authorizations`` times (then
the last response is returned as it is):

1. Protected resource metadata (RFC 9728): the challenge's ``resource_metadata``, else the
   well-known URLs (path-inserted, then root); its ``resource`` must be the server URL or a
   parent path of it on the same origin (else :class:`AuthorizationError`). A server with none
   (2025-03-26) is its own authorization server.
2. Authorization server metadata (RFC 8414, then OpenID Connect discovery, in the spec's URL
   order), whose ``issuer`` must be the one named; without any (2025-03-26), the default
   endpoints ``/authorize``, ``/token``, ``/register`` of the server's origin.
3. Client identity, in the spec's order: pre-registered ``credentials``, a Client ID Metadata
   Document (``client_metadata_url``, when the server lists
   ``client_id_metadata_document_supported``), dynamic client registration (RFC 7591). Kept per
   authorization server.
4. Scope: ``scope`` when given, else the challenge's (on a step-up joined with the scopes
   granted), else the resource's ``scopes_supported``, else none; ``offline_access`` added when
   the authorization server lists it and refresh tokens are wanted.
5. Grant: authorization code with PKCE S256 (refused when the metadata lists methods without
   S256), ``state``, the ``resource`` parameter (RFC 8707) on the authorization and token
   requests, the response's ``iss`` checked (RFC 9207); ``client_credentials``; or ``jwt-bearer``
   (RFC 7523: the assertion from ``assertion``).

Token endpoint authentication: ``client_secret_basic``, ``client_secret_post``, ``none``,
``private_key_jwt`` (needs PyJWT with cryptography: ``pip install mcpgen-runtime[jwt]``); from the
registration, else chosen from the server's list.

DPoP (RFC 9449, ``dpop=True``; SEP-1932): the token requests carry a proof of the client's key, a
token issued as ``token_type: DPoP`` is sent as ``Authorization: DPoP <token>`` with a fresh proof
(bound to it by ``ath``) on every request, and a ``use_dpop_nonce`` refusal (400 from the token
endpoint, 401 ``WWW-Authenticate: DPoP`` from the server) is answered once with the server's
``DPoP-Nonce`` (see :class:`DPoPKey`).
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit, urlunsplit

import httpx2

#: The user-agent step of the authorization code grant: show the user the authorization URL, and
#: return the URL the authorization server redirected back to (``redirect_uri`` with its query).
UserAgent = Callable[[str, str], Awaitable[str]]
#: The assertion of the ``jwt-bearer`` grant for an authorization server (issuer, resource, metadata).
Assertion = Callable[[str, str, Mapping[str, Any]], Awaitable[str]]

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
CLIENT_ASSERTION_JWT = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
LOOPBACK = ("localhost", "127.0.0.1", "::1")


class AuthorizationError(Exception):
    """Authorization could not proceed: metadata refused, no way to register, a bad authorization
    or token response. The message names the URL and what was wrong."""


@dataclass
class ClientRegistration:
    """A client's identity at one authorization server (pre-registered, a metadata document URL, or registered)."""

    client_id: str
    client_secret: str | None = None
    token_endpoint_auth_method: str | None = None


@dataclass
class Tokens:
    """Tokens held for one server: ``expires_at`` in ``time.time()`` seconds (None: unknown)."""

    access_token: str
    refresh_token: str | None = None
    expires_at: float | None = None
    scope: str | None = None
    #: ``Bearer``, or ``DPoP`` for a token bound to the client's DPoP key (RFC 9449)
    token_type: str = "Bearer"


@dataclass
class _Target:
    resource: str
    issuer: str
    metadata: dict[str, Any]
    resource_metadata: dict[str, Any] | None = None
    granted: set[str] = field(default_factory=set)


def parse_bearer_challenge(header: str | None, scheme: str = "Bearer") -> dict[str, str] | None:
    """The parameters of a ``WWW-Authenticate: Bearer …`` challenge (or of another ``scheme``'s,
    e.g. ``DPoP``; lower-case names), None without one."""
    if not header:
        return None
    m = re.search(rf"(?:^|,\s*){scheme}(?:\s|,|$)", header, re.I)
    if m is None:
        return None
    rest = re.sub(rf"^,?\s*{scheme}\s*", "", header[m.start() :], flags=re.I)
    out: dict[str, str] = {}
    for pm in re.finditer(r'\s*([A-Za-z0-9_\-.]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*(?:,|$)', rest):
        key = pm.group(1).lower()
        if key not in out:
            out[key] = re.sub(r"\\(.)", r"\1", pm.group(2)) if pm.group(2) is not None else pm.group(3)
    return out


def resource_metadata_urls(server_url: str) -> list[str]:
    """The RFC 9728 well-known URLs of an MCP server URL: path-inserted (when it has a path), then root."""
    u = urlsplit(server_url)
    root = f"{u.scheme}://{u.netloc}/.well-known/oauth-protected-resource"
    path = u.path.rstrip("/")
    return [root + path, root] if path else [root]


def authorization_server_metadata_urls(issuer: str) -> list[str]:
    """The well-known metadata URLs of an issuer, in the spec's order (RFC 8414, then OpenID Connect)."""
    u = urlsplit(issuer)
    origin = f"{u.scheme}://{u.netloc}"
    path = u.path.rstrip("/")
    if not path:
        return [f"{origin}/.well-known/oauth-authorization-server", f"{origin}/.well-known/openid-configuration"]
    return [f"{origin}/.well-known/oauth-authorization-server{path}", f"{origin}/.well-known/openid-configuration{path}", f"{origin}{path}/.well-known/openid-configuration"]


def resource_covers(resource: str, server_url: str) -> bool:
    """Whether ``resource`` names ``server_url``: same origin, and its path is the server's or a parent of it."""
    r, s = urlsplit(resource), urlsplit(server_url)
    if (r.scheme.lower(), r.netloc.lower()) != (s.scheme.lower(), s.netloc.lower()):
        return False
    rp, sp = r.path.rstrip("/"), s.path.rstrip("/")
    return sp == rp or sp.startswith(rp + "/")


def _secure(url: str, allow_loopback_http: bool) -> None:
    u = urlsplit(url)
    if u.scheme == "https" or (u.scheme == "http" and allow_loopback_http and (u.hostname or "") in LOOPBACK):
        return
    raise AuthorizationError(f"{url}: authorization endpoints must use https")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class DPoPKey:
    """Proofs of possession of a key (RFC 9449 DPoP): an ES256 key (``private_key``: a PEM P-256
    key; default: one made here), a fresh proof JWT per request (``htm``, ``htu`` without query
    and fragment, ``iat``, a random ``jti``; ``ath``, the SHA-256 of the access token, on requests
    to the resource; the server's last ``DPoP-Nonce``, per origin, at most 64 origins kept).
    Needs PyJWT with cryptography (``pip install mcpgen-runtime[jwt]``)."""

    def __init__(self, private_key: str | None = None) -> None:
        try:
            import jwt
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives.serialization import load_pem_private_key
        except ImportError as e:  # pragma: no cover - the extra is installed in the tests
            raise AuthorizationError("DPoP needs PyJWT with cryptography (pip install mcpgen-runtime[jwt])") from e
        key = load_pem_private_key(private_key.encode(), password=None) if private_key else ec.generate_private_key(ec.SECP256R1())
        if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
            raise ValueError("a DPoP key must be a P-256 (ES256) private key")
        self._jwt = jwt
        self._key = key
        self.jwk: dict[str, Any] = jwt.algorithms.ECAlgorithm.to_jwk(key.public_key(), as_dict=True)
        self._nonces: dict[str, str] = {}

    @staticmethod
    def _origin(url: str) -> str:
        u = urlsplit(url)
        return f"{u.scheme}://{u.netloc}".lower()

    def proof(self, method: str, url: str, access_token: str | None = None) -> str:
        """The ``DPoP`` header's value for one request."""
        u = urlsplit(url)
        claims: dict[str, Any] = {"jti": secrets.token_urlsafe(16), "htm": method.upper(), "htu": urlunsplit((u.scheme, u.netloc, u.path, "", "")), "iat": int(time.time())}
        nonce = self._nonces.get(self._origin(url))
        if nonce is not None:
            claims["nonce"] = nonce
        if access_token is not None:
            claims["ath"] = _b64url(hashlib.sha256(access_token.encode()).digest())
        token: str = self._jwt.encode(claims, self._key, algorithm="ES256", headers={"typ": "dpop+jwt", "jwk": self.jwk})
        return token

    def learn_nonce(self, url: str, nonce: str | None) -> bool:
        """Keeps a server's ``DPoP-Nonce``; True when it is new (a request refused for it may go again)."""
        if not nonce:
            return False
        origin = self._origin(url)
        if self._nonces.get(origin) == nonce:
            return False
        if origin not in self._nonces and len(self._nonces) >= 64:
            del self._nonces[next(iter(self._nonces))]
        self._nonces[origin] = nonce
        return True


def _form_encode(v: str) -> str:
    # RFC 6749 section 2.3.1: application/x-www-form-urlencoded, unreserved characters as they are
    return quote(v, safe="-._~").replace("%20", "+")


class OAuthClientAuth(httpx2.Auth):
    """The authorizing ``httpx2.Auth`` described in the module docs.

    ``grant``: ``"authorization_code"`` (needs ``user_agent`` and a redirect URI),
    ``"client_credentials"`` or ``"jwt-bearer"`` (needs ``assertion``). ``server_url``: the MCP
    server URL (default: each request's URL without query). ``client_metadata``: what dynamic
    registration sends (``client_name``, ``redirect_uris`` …). ``private_key``: a PEM private key
    for ``private_key_jwt`` (``private_key_alg``, default ES256). ``timeout``: seconds per request
    to the authorization server. ``dpop``: ask for DPoP-bound tokens (RFC 9449): ``True`` (a key
    made for this client) or a :class:`DPoPKey`; the token and MCP requests then carry a proof,
    the token goes as ``Authorization: DPoP``, and a server's ``use_dpop_nonce`` is answered once
    with its nonce.
    """

    # the MCP server's answers are read by the transport (SSE streams may never end)
    requires_response_body = False

    def __init__(
        self,
        *,
        grant: str = "authorization_code",
        server_url: str | None = None,
        user_agent: UserAgent | None = None,
        redirect_uri: str | None = None,
        credentials: ClientRegistration | None = None,
        client_metadata_url: str | None = None,
        client_metadata: Mapping[str, Any] | None = None,
        private_key: str | None = None,
        private_key_alg: str = "ES256",
        assertion: Assertion | None = None,
        scope: str | None = None,
        offline_access: bool | None = None,
        max_authorizations: int = 3,
        refresh_skew: float = 30.0,
        allow_loopback_http: bool = True,
        timeout: float = 30.0,
        dpop: bool | DPoPKey = False,
    ) -> None:
        if grant not in ("authorization_code", "client_credentials", "jwt-bearer"):
            raise ValueError(f"unknown grant {grant!r} (authorization_code, client_credentials, jwt-bearer)")
        if grant == "authorization_code" and user_agent is None:
            raise ValueError("the authorization_code grant needs user_agent")
        if grant == "jwt-bearer" and assertion is None:
            raise ValueError("the jwt-bearer grant needs assertion")
        self.grant = grant
        self.server_url = server_url
        self.user_agent = user_agent
        self.client_metadata = dict(client_metadata or {})
        uris = self.client_metadata.get("redirect_uris")
        self.redirect_uri = redirect_uri or (uris[0] if isinstance(uris, list) and uris else None)
        self.credentials = credentials
        self.client_metadata_url = client_metadata_url
        self.private_key = private_key
        self.private_key_alg = private_key_alg
        self.assertion = assertion
        self.scope = scope
        self.offline_access = grant == "authorization_code" if offline_access is None else offline_access
        self.max_authorizations = max_authorizations
        self.refresh_skew = refresh_skew
        self.allow_loopback_http = allow_loopback_http
        self.timeout = timeout
        self.dpop: DPoPKey | None = (DPoPKey() if dpop is True else dpop) or None
        #: tokens per server URL; registrations per issuer; the authorization server last used per server URL
        self.tokens: dict[str, Tokens] = {}
        self.registrations: dict[str, ClientRegistration] = {}
        self._targets: dict[str, _Target] = {}
        self._http: httpx2.AsyncClient | None = None

    async def aclose(self) -> None:
        """Closes the connections to authorization servers."""
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    def _client(self) -> httpx2.AsyncClient:
        if self._http is None:
            self._http = httpx2.AsyncClient(timeout=self.timeout, follow_redirects=False)
        return self._http

    def _server_of(self, request: httpx2.Request) -> str:
        if self.server_url:
            return self.server_url
        u = urlsplit(str(request.url))
        return urlunsplit((u.scheme, u.netloc, u.path, "", ""))

    # ---- the flow ----

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        server = self._server_of(request)
        tokens = self.tokens.get(server)
        if tokens is not None and tokens.expires_at is not None and tokens.expires_at - self.refresh_skew <= time.time():
            tokens = await self._refresh(server, tokens)
        if tokens is not None:
            self._present(request, tokens)
        response = yield request
        for _ in range(self.max_authorizations):
            if tokens is not None and self._nonce_refusal(request, response):
                self._present(request, tokens)  # once more, with the server's nonce
                response = yield request
            challenge = self._challenge(response.headers.get("www-authenticate"))
            step_up = response.status_code == 403 and challenge is not None and challenge.get("error") == "insufficient_scope"
            if response.status_code != 401 and not step_up:
                return
            tokens = await self._authorize(server, challenge or {}, step_up)
            self._present(request, tokens)
            response = yield request

    def _challenge(self, header: str | None) -> dict[str, str] | None:
        """The challenge of the scheme this client uses (RFC 9449 §7.1: a DPoP request is answered
        with a DPoP one), what it lacks (``resource_metadata``, ``scope``) from the other's."""
        mine, other = ("DPoP", "Bearer") if self.dpop is not None else ("Bearer", "DPoP")
        first, second = parse_bearer_challenge(header, mine), parse_bearer_challenge(header, other)
        if first is None and second is None:
            return None
        return {**(second or {}), **(first or {})}

    def _present(self, request: httpx2.Request, tokens: Tokens) -> None:
        """``Authorization: Bearer``, or ``DPoP`` with a fresh proof for a DPoP-bound token."""
        if self.dpop is not None and tokens.token_type.lower() == "dpop":
            request.headers["Authorization"] = f"DPoP {tokens.access_token}"
            request.headers["DPoP"] = self.dpop.proof(request.method, str(request.url), tokens.access_token)
        else:
            request.headers["Authorization"] = f"Bearer {tokens.access_token}"

    def _nonce_refusal(self, request: httpx2.Request, response: httpx2.Response) -> bool:
        """A 401 ``DPoP error="use_dpop_nonce"`` with a new ``DPoP-Nonce`` (kept): send again."""
        if self.dpop is None or response.status_code != 401:
            return False
        challenge = parse_bearer_challenge(response.headers.get("www-authenticate"), "DPoP")
        return challenge is not None and challenge.get("error") == "use_dpop_nonce" and self.dpop.learn_nonce(str(request.url), response.headers.get("dpop-nonce"))

    async def _get_json(self, url: str) -> dict[str, Any] | None:
        """A metadata document: None for a 4xx answer; AuthorizationError for anything else not a JSON object."""
        try:
            r = await self._client().get(url, headers={"Accept": "application/json", "MCP-Protocol-Version": "2025-11-25"})
        except httpx2.HTTPError as e:
            raise AuthorizationError(f"GET {url} failed: {e!r}") from e
        if 400 <= r.status_code < 500:
            return None
        if r.status_code != 200:
            raise AuthorizationError(f"GET {url}: HTTP {r.status_code}")
        try:
            doc = r.json()
        except ValueError as e:
            raise AuthorizationError(f"GET {url}: the metadata is not JSON") from e
        if not isinstance(doc, dict):
            raise AuthorizationError(f"GET {url}: the metadata is not a JSON object")
        return doc

    async def _discover(self, server: str, challenge: Mapping[str, str]) -> _Target:
        prm: dict[str, Any] | None = None
        given = challenge.get("resource_metadata")
        for url in [given] if given else resource_metadata_urls(server):
            _secure(url, self.allow_loopback_http)
            prm = await self._get_json(url)
            if prm is not None:
                resource = prm.get("resource")
                if not isinstance(resource, str):
                    raise AuthorizationError(f"protected resource metadata at {url} has no resource")
                if not resource_covers(resource, server):
                    raise AuthorizationError(f"protected resource metadata at {url} is for {resource}, not {server}")
                break
        if prm is not None:
            servers = prm.get("authorization_servers")
            if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
                raise AuthorizationError(f"protected resource metadata of {server} names no authorization server")
            issuer = servers[0]
            resource = str(prm["resource"])
        else:
            # 2025-03-26: the MCP server's origin is its authorization server
            u = urlsplit(server)
            issuer = f"{u.scheme}://{u.netloc}"
            resource = server
        _secure(issuer, self.allow_loopback_http)
        metadata: dict[str, Any] | None = None
        if prm is None:
            # 2025-03-26 basic/authorization: the server's origin is the authorization base URL;
            # its RFC 8414 document (no issuer was named, so none to compare), else the default endpoints
            url = issuer + "/.well-known/oauth-authorization-server"
            metadata = await self._get_json(url)
            if metadata is not None:
                if not all(isinstance(metadata.get(k), str) for k in ("issuer", "authorization_endpoint", "token_endpoint")):
                    raise AuthorizationError(f"authorization server metadata at {url} lacks issuer, authorization_endpoint or token_endpoint")
                issuer = metadata["issuer"]
            else:
                metadata = {"issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token", "registration_endpoint": issuer + "/register", "code_challenge_methods_supported": ["S256"]}
            return _Target(resource=resource, issuer=issuer, metadata=metadata, resource_metadata=None)
        for url in authorization_server_metadata_urls(issuer):
            metadata = await self._get_json(url)
            if metadata is not None:
                if metadata.get("issuer") != issuer:
                    raise AuthorizationError(f"authorization server metadata at {url} names issuer {metadata.get('issuer')!r}, not {issuer!r}")
                break
        if metadata is None:
            raise AuthorizationError(f"no authorization server metadata for {issuer} (tried {', '.join(authorization_server_metadata_urls(issuer))})")
        return _Target(resource=resource, issuer=issuer, metadata=metadata, resource_metadata=prm)

    async def _registration(self, target: _Target) -> ClientRegistration:
        known = self.registrations.get(target.issuer)
        if known is not None:
            return known
        if self.credentials is not None:
            reg = self.credentials
        elif self.client_metadata_url and target.metadata.get("client_id_metadata_document_supported") is True:
            reg = ClientRegistration(client_id=self.client_metadata_url, token_endpoint_auth_method="none")
        else:
            endpoint = target.metadata.get("registration_endpoint")
            if not isinstance(endpoint, str):
                raise AuthorizationError(f"{target.issuer}: no client credentials, no Client ID Metadata Document support and no registration endpoint")
            _secure(endpoint, self.allow_loopback_http)
            body = {"client_name": "mcpgen client", "grant_types": [self.grant if self.grant != "jwt-bearer" else JWT_BEARER], **self.client_metadata}
            r = await self._client().post(endpoint, json=body, headers={"Accept": "application/json"})
            if r.status_code not in (200, 201):
                raise AuthorizationError(f"POST {endpoint} (client registration): HTTP {r.status_code} {r.text[:200]}")
            doc = r.json()
            if not isinstance(doc, dict) or not isinstance(doc.get("client_id"), str):
                raise AuthorizationError(f"POST {endpoint} (client registration): no client_id in the answer")
            reg = ClientRegistration(client_id=doc["client_id"], client_secret=doc.get("client_secret"), token_endpoint_auth_method=doc.get("token_endpoint_auth_method"))
        self.registrations[target.issuer] = reg
        return reg

    def _scope(self, target: _Target, challenge: Mapping[str, str], step_up: bool) -> str | None:
        if self.scope is not None:
            scopes = self.scope.split()
        elif challenge.get("scope"):
            scopes = challenge["scope"].split()
            if step_up:
                scopes = sorted(target.granted | set(scopes), key=lambda s: (s not in scopes, s))
        else:
            supported = (target.resource_metadata or {}).get("scopes_supported")
            scopes = [s for s in supported if isinstance(s, str)] if isinstance(supported, list) else []
        listed = target.metadata.get("scopes_supported")
        if self.offline_access and isinstance(listed, list) and "offline_access" in listed and "offline_access" not in scopes:
            scopes.append("offline_access")
        return " ".join(scopes) or None

    async def _authorize(self, server: str, challenge: Mapping[str, str], step_up: bool) -> Tokens:
        target = self._targets.get(server) if step_up else None
        if target is None or challenge.get("resource_metadata"):
            previous = self._targets.get(server)
            target = await self._discover(server, challenge)
            if previous is not None:
                target.granted = previous.granted
            self._targets[server] = target
        reg = await self._registration(target)
        scope = self._scope(target, challenge, step_up)
        params: dict[str, str] = {}
        if self.grant == "authorization_code":
            params = await self._authorization_code(target, reg, scope)
        elif self.grant == "client_credentials":
            params = {"grant_type": "client_credentials"}
            if scope:
                params["scope"] = scope
        else:
            assert self.assertion is not None
            params = {"grant_type": JWT_BEARER, "assertion": await self.assertion(target.issuer, target.resource, target.metadata)}
            if scope:
                params["scope"] = scope
        params["resource"] = target.resource
        tokens = await self._token_request(target, reg, params)
        target.granted |= set((tokens.scope or scope or "").split())
        self.tokens[server] = tokens
        return tokens

    async def _authorization_code(self, target: _Target, reg: ClientRegistration, scope: str | None) -> dict[str, str]:
        endpoint = target.metadata.get("authorization_endpoint")
        if not isinstance(endpoint, str):
            raise AuthorizationError(f"{target.issuer}: the metadata has no authorization_endpoint")
        _secure(endpoint, self.allow_loopback_http)
        methods = target.metadata.get("code_challenge_methods_supported")
        if isinstance(methods, list) and "S256" not in methods:
            raise AuthorizationError(f"{target.issuer} does not support PKCE S256 (code_challenge_methods_supported: {methods})")
        if self.redirect_uri is None:
            raise AuthorizationError("the authorization_code grant needs a redirect URI (redirect_uri or client_metadata.redirect_uris)")
        verifier = _b64url(secrets.token_bytes(32))
        state = _b64url(secrets.token_bytes(16))
        query: dict[str, str] = {
            "response_type": "code",
            "client_id": reg.client_id,
            "redirect_uri": self.redirect_uri,
            "code_challenge": _b64url(hashlib.sha256(verifier.encode()).digest()),
            "code_challenge_method": "S256",
            "state": state,
            "resource": target.resource,
        }
        if scope:
            query["scope"] = scope
        sep = "&" if "?" in endpoint else "?"
        assert self.user_agent is not None
        answer = await self.user_agent(endpoint + sep + urlencode(query), self.redirect_uri)
        got = {k: v[0] for k, v in parse_qs(urlsplit(answer).query).items()}
        if got.get("state") != state:
            raise AuthorizationError("the authorization response's state is not the one sent")
        if "iss" in got or target.metadata.get("authorization_response_iss_parameter_supported") is True:
            if got.get("iss") != target.issuer:
                raise AuthorizationError(f"the authorization response's iss {got.get('iss')!r} is not {target.issuer!r}")
        if "error" in got:
            raise AuthorizationError(f"authorization refused: {got['error']} {got.get('error_description', '')}".rstrip())
        code = got.get("code")
        if not code:
            raise AuthorizationError("the authorization response has no code")
        return {"grant_type": "authorization_code", "code": code, "redirect_uri": self.redirect_uri, "code_verifier": verifier}

    def _auth_method(self, target: _Target, reg: ClientRegistration) -> str:
        if reg.token_endpoint_auth_method:
            return reg.token_endpoint_auth_method
        if self.private_key is not None:
            return "private_key_jwt"
        if reg.client_secret is None:
            return "none"
        listed = target.metadata.get("token_endpoint_auth_methods_supported")
        if isinstance(listed, list) and "client_secret_basic" not in listed and "client_secret_post" in listed:
            return "client_secret_post"
        return "client_secret_basic"

    def _client_assertion(self, target: _Target, reg: ClientRegistration) -> str:
        if self.private_key is None:
            raise AuthorizationError("private_key_jwt needs private_key")
        try:
            import jwt
        except ImportError as e:  # pragma: no cover - the extra is installed in the tests
            raise AuthorizationError("private_key_jwt needs PyJWT with cryptography (pip install mcpgen-runtime[jwt])") from e
        now = int(time.time())
        claims = {"iss": reg.client_id, "sub": reg.client_id, "aud": target.issuer, "jti": str(uuid.uuid4()), "iat": now, "exp": now + 60}
        token: str = jwt.encode(claims, self.private_key, algorithm=self.private_key_alg)
        return token

    async def _token_request(self, target: _Target, reg: ClientRegistration, params: dict[str, str]) -> Tokens:
        endpoint = target.metadata.get("token_endpoint")
        if not isinstance(endpoint, str):
            raise AuthorizationError(f"{target.issuer}: the metadata has no token_endpoint")
        _secure(endpoint, self.allow_loopback_http)
        headers = {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"}
        body = dict(params)
        method = self._auth_method(target, reg)
        if method == "client_secret_basic" and reg.client_secret is not None:
            pair = f"{_form_encode(reg.client_id)}:{_form_encode(reg.client_secret)}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        elif method == "client_secret_post" and reg.client_secret is not None:
            body["client_id"] = reg.client_id
            body["client_secret"] = reg.client_secret
        elif method == "private_key_jwt":
            body["client_id"] = reg.client_id
            body["client_assertion_type"] = CLIENT_ASSERTION_JWT
            body["client_assertion"] = self._client_assertion(target, reg)
        else:
            body["client_id"] = reg.client_id
        for attempt in (0, 1):
            if self.dpop is not None:
                headers["DPoP"] = self.dpop.proof("POST", endpoint)
            try:
                r = await self._client().post(endpoint, content=urlencode(body), headers=headers)
            except httpx2.HTTPError as e:
                raise AuthorizationError(f"POST {endpoint} failed: {e!r}") from e
            try:
                doc = r.json()
            except ValueError:
                doc = None
            new_nonce = self.dpop is not None and self.dpop.learn_nonce(endpoint, r.headers.get("dpop-nonce"))
            # RFC 9449 section 8: a nonce the server requires comes with a 400 use_dpop_nonce
            if not (attempt == 0 and new_nonce and r.status_code == 400 and isinstance(doc, dict) and doc.get("error") == "use_dpop_nonce"):
                break
        if r.status_code != 200 or not isinstance(doc, dict) or not isinstance(doc.get("access_token"), str):
            raise AuthorizationError(f"POST {endpoint} ({params.get('grant_type')}): HTTP {r.status_code} {r.text[:200]}")
        expires = doc.get("expires_in")
        return Tokens(
            access_token=doc["access_token"],
            refresh_token=doc.get("refresh_token") if isinstance(doc.get("refresh_token"), str) else None,
            expires_at=time.time() + expires if isinstance(expires, (int, float)) and not isinstance(expires, bool) else None,
            scope=doc.get("scope") if isinstance(doc.get("scope"), str) else None,
            token_type="DPoP" if self.dpop is not None and str(doc.get("token_type", "")).lower() == "dpop" else "Bearer",
        )

    async def _refresh(self, server: str, tokens: Tokens) -> Tokens | None:
        """The refreshed tokens; None (authorize again on the 401) without a refresh token or when refused."""
        target = self._targets.get(server)
        reg = self.registrations.get(target.issuer) if target is not None else None
        if tokens.refresh_token is None or target is None or reg is None:
            self.tokens.pop(server, None)
            return None
        try:
            fresh = await self._token_request(target, reg, {"grant_type": "refresh_token", "refresh_token": tokens.refresh_token, "resource": target.resource})
        except AuthorizationError:
            self.tokens.pop(server, None)
            return None
        if fresh.refresh_token is None:
            fresh.refresh_token = tokens.refresh_token
        self.tokens[server] = fresh
        return fresh
