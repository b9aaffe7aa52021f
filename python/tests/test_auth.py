"""The OAuth client (mcpgen_runtime.auth) beyond the conformance suites' auth scenarios: challenge
parsing, the well-known URLs in the spec's order, and refusals (metadata of another resource, an
issuer that is not the one named, http to a remote host) raised before any token is asked for."""

from __future__ import annotations

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
