"""The OAuth client (mcpgen_runtime.auth) beyond the conformance suites' auth scenarios: challenge
parsing, the well-known URLs in the spec's order, and refusals (metadata of another resource, an
issuer that is not the one named, http to a remote host) raised before any token is asked for."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest

from mcpgen_runtime.auth import (
    AuthorizationError,
    ClientRegistration,
    OAuthClientAuth,
    authorization_server_metadata_urls,
    parse_bearer_challenge,
    resource_covers,
    resource_metadata_urls,
)

from helpers import http_server, raw_http


def test_bearer_challenges_are_parsed_with_quoted_values_and_other_schemes_beside() -> None:
    assert parse_bearer_challenge('Bearer resource_metadata="http://a/x", scope="read write"') == {"resource_metadata": "http://a/x", "scope": "read write"}
    assert parse_bearer_challenge('Basic realm="x", Bearer error="insufficient_scope", Scope=files') == {"error": "insufficient_scope", "scope": "files"}
    assert parse_bearer_challenge('Bearer error_description="say \\"no\\""') == {"error_description": 'say "no"'}
    assert parse_bearer_challenge('Basic realm="x"') is None
    assert parse_bearer_challenge(None) is None
    # the first of a repeated parameter counts
    assert parse_bearer_challenge("Bearer scope=a, scope=b") == {"scope": "a"}


def test_well_known_urls_follow_the_spec_order() -> None:
    assert resource_metadata_urls("https://h/p/mcp") == ["https://h/.well-known/oauth-protected-resource/p/mcp", "https://h/.well-known/oauth-protected-resource"]
    assert resource_metadata_urls("https://h/") == ["https://h/.well-known/oauth-protected-resource"]
    assert authorization_server_metadata_urls("https://as/t1") == [
        "https://as/.well-known/oauth-authorization-server/t1",
        "https://as/.well-known/openid-configuration/t1",
        "https://as/t1/.well-known/openid-configuration",
    ]
    assert authorization_server_metadata_urls("https://as") == ["https://as/.well-known/oauth-authorization-server", "https://as/.well-known/openid-configuration"]
    assert resource_covers("https://h/p", "https://h/p/mcp") and resource_covers("https://h/p/mcp", "https://h/p/mcp")
    assert not resource_covers("https://h/pp", "https://h/p/mcp") and not resource_covers("https://other/p", "https://h/p/mcp")


def protected(documents: Callable[[str], dict[str, Any] | None], seen: list[str]) -> Any:
    """An ASGI app: 401 with a challenge on /mcp, the documents ``documents(base)`` gives per path, a token endpoint."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        base = f"http://{headers['host']}"
        path = scope["path"]
        seen.append(f"{scope['method']} {path}")
        if path == "/mcp":
            if headers.get("authorization") == "Bearer good":
                await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
                await send({"type": "http.response.body", "body": b"{}"})
                return
            challenge = f'Bearer resource_metadata="{base}/prm"'.encode()
            await send({"type": "http.response.start", "status": 401, "headers": [(b"www-authenticate", challenge)]})
            await send({"type": "http.response.body", "body": b""})
            return
        if path == "/token":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": json.dumps({"access_token": "good", "token_type": "Bearer", "expires_in": 3600}).encode()})
            return
        doc = documents(base).get(path) if documents(base) else None
        status = 200 if doc is not None else 404
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": json.dumps(doc).encode() if doc is not None else b""})

    return app


def machine_client() -> OAuthClientAuth:
    return OAuthClientAuth(grant="client_credentials", credentials=ClientRegistration(client_id="c1", client_secret="s1"))


async def test_client_credentials_against_a_protected_endpoint_then_the_token_is_reused() -> None:
    seen: list[str] = []

    def docs(base: str) -> dict[str, Any]:
        return {"/prm": {"resource": base + "/mcp", "authorization_servers": [base]}, "/.well-known/oauth-authorization-server": {"issuer": base, "token_endpoint": base + "/token"}}

    async with http_server(protected(docs, seen)) as url:
        auth = machine_client()
        async with raw_http(auth=auth) as http:
            assert (await http.post(url, content=b"{}")).status_code == 200
            assert (await http.post(url, content=b"{}")).status_code == 200
        await auth.aclose()
    assert seen == ["POST /mcp", "GET /prm", "GET /.well-known/oauth-authorization-server", "POST /token", "POST /mcp", "POST /mcp"]


@pytest.mark.parametrize(
    ("docs", "message"),
    [
        (lambda base: {"/prm": {"resource": "http://127.0.0.1:9/other", "authorization_servers": [base]}}, "is for http://127.0.0.1:9/other, not"),
        (lambda base: {"/prm": {"resource": base + "/mcp", "authorization_servers": [base]}, "/.well-known/oauth-authorization-server": {"issuer": "http://evil.example"}}, "names issuer 'http://evil.example'"),
        (lambda base: {"/prm": {"resource": base + "/mcp", "authorization_servers": ["http://as.example"]}}, "must use https"),
        (lambda base: {"/prm": {"resource": base + "/mcp"}}, "names no authorization server"),
    ],
)
async def test_metadata_that_does_not_name_this_server_or_its_issuer_is_refused_before_any_token_request(docs: Callable[[str], dict[str, Any]], message: str) -> None:
    seen: list[str] = []
    async with http_server(protected(docs, seen)) as url:
        auth = machine_client()
        async with raw_http(auth=auth) as http:
            with pytest.raises(AuthorizationError, match=message.replace("(", r"\(").replace(".", r"\.")):
                await http.post(url, content=b"{}")
        await auth.aclose()
    assert "POST /token" not in seen


def dpop_protected(seen: list[str], proofs: list[dict[str, Any]], anonymous: str = 'Bearer resource_metadata="{prm}"') -> Any:
    """An ASGI app that binds its tokens to DPoP keys (RFC 9449) and wants nonces: its token
    endpoint answers the first proof 400 ``use_dpop_nonce`` (nonce ``as-1``), /mcp a proof without
    its nonce ``rs-1`` 401 ``DPoP error="use_dpop_nonce"``; every proof is verified with the key
    it carries (``typ``, ES256 signature, ``htm``, ``htu``, ``ath`` of the token, key bound at
    issue) and kept in ``proofs``. A request without a token is answered ``anonymous`` (its
    ``{prm}`` the metadata URL)."""
    import hashlib

    import jwt

    bound: dict[str, str] = {}

    def verify(header: str | None, method: str, url: str) -> dict[str, Any]:
        assert header is not None, f"no DPoP proof on {method} {url}"
        head = jwt.get_unverified_header(header)
        assert head["typ"] == "dpop+jwt" and head["alg"] == "ES256" and "d" not in head["jwk"]
        claims: dict[str, Any] = jwt.decode(header, jwt.PyJWK(head["jwk"]).key, algorithms=["ES256"])
        assert (claims["htm"], claims["htu"]) == (method, url)
        claims["thumbprint"] = json.dumps(head["jwk"], sort_keys=True)
        proofs.append(claims)
        return claims

    async def reply(send: Any, status: int, body: Any, headers: list[tuple[bytes, bytes]]) -> None:
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json"), *headers]})
        await send({"type": "http.response.body", "body": json.dumps(body).encode() if body is not None else b""})

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode(): v.decode() for k, v in scope["headers"]}
        base = f"http://{headers['host']}"
        path = scope["path"]
        seen.append(f"{scope['method']} {path}")
        if path == "/token":
            claims = verify(headers.get("dpop"), "POST", base + "/token")
            if claims.get("nonce") != "as-1":
                return await reply(send, 400, {"error": "use_dpop_nonce"}, [(b"dpop-nonce", b"as-1")])
            bound["bound"] = claims["thumbprint"]
            return await reply(send, 200, {"access_token": "bound", "token_type": "DPoP", "expires_in": 3600}, [])
        if path == "/mcp":
            if headers.get("authorization") == "DPoP bound":
                claims = verify(headers.get("dpop"), "POST", base + "/mcp")
                ath = base64.urlsafe_b64encode(hashlib.sha256(b"bound").digest()).rstrip(b"=").decode()
                assert claims["ath"] == ath and claims["thumbprint"] == bound["bound"]
                if claims.get("nonce") != "rs-1":
                    return await reply(send, 401, None, [(b"www-authenticate", b'DPoP error="use_dpop_nonce", algs="ES256"'), (b"dpop-nonce", b"rs-1")])
                return await reply(send, 200, {}, [])
            return await reply(send, 401, None, [(b"www-authenticate", anonymous.format(prm=base + "/prm").encode())])
        docs = {"/prm": {"resource": base + "/mcp", "authorization_servers": [base]}, "/.well-known/oauth-authorization-server": {"issuer": base, "token_endpoint": base + "/token", "dpop_signing_alg_values_supported": ["ES256"]}}
        await reply(send, 200 if path in docs else 404, docs.get(path), [])

    return app


async def test_dpop_bound_tokens_carry_a_fresh_proof_on_every_request_and_answer_nonce_refusals_once() -> None:
    seen: list[str] = []
    proofs: list[dict[str, Any]] = []
    async with http_server(dpop_protected(seen, proofs)) as url:
        auth = OAuthClientAuth(grant="client_credentials", credentials=ClientRegistration(client_id="c1", client_secret="s1"), dpop=True)
        async with raw_http(auth=auth) as http:
            assert (await http.post(url, content=b"{}")).status_code == 200
            assert (await http.post(url, content=b"{}")).status_code == 200  # the token and the nonce are kept
        await auth.aclose()
    assert seen == ["POST /mcp", "GET /prm", "GET /.well-known/oauth-authorization-server", "POST /token", "POST /token", "POST /mcp", "POST /mcp", "POST /mcp"]
    # nonces are kept per origin (here the authorization server's and the resource's are one)
    assert [p.get("nonce") for p in proofs] == [None, "as-1", "as-1", "rs-1", "rs-1"]
    assert ["ath" in p for p in proofs] == [False, False, True, True, True]
    assert len({p["jti"] for p in proofs}) == 5 and len({p["thumbprint"] for p in proofs}) == 1  # fresh proofs, one key
    assert auth.tokens[url].token_type == "DPoP"


@pytest.mark.parametrize(
    "anonymous",
    [
        # RFC 9449 §7.1: a resource that takes DPoP alone challenges in that scheme only
        'DPoP resource_metadata="{prm}", algs="ES256"',
        # both schemes offered, the metadata named in the Bearer one only
        'Bearer resource_metadata="{prm}", DPoP algs="ES256"',
    ],
)
async def test_a_dpop_client_finds_the_metadata_through_either_scheme_s_challenge(anonymous: str) -> None:
    seen: list[str] = []
    async with http_server(dpop_protected(seen, [], anonymous)) as url:
        auth = OAuthClientAuth(grant="client_credentials", credentials=ClientRegistration(client_id="c1", client_secret="s1"), dpop=True)
        async with raw_http(auth=auth) as http:
            assert (await http.post(url, content=b"{}")).status_code == 200
        await auth.aclose()
    assert seen[:3] == ["POST /mcp", "GET /prm", "GET /.well-known/oauth-authorization-server"]


def test_a_dpop_key_must_be_p256() -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from mcpgen_runtime.auth import DPoPKey

    p384 = ec.generate_private_key(ec.SECP384R1()).private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    with pytest.raises(ValueError, match="P-256"):
        DPoPKey(p384)
