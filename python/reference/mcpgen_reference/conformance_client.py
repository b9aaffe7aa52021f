"""The Python conformance client: run by ``conformance client --command "<cmd>"``, the server URL
last on its command line, the scenario in ``MCP_CONFORMANCE_SCENARIO`` and its data in
``MCP_CONFORMANCE_CONTEXT``. With ``--rev 2026-07-28`` (before the URL) it speaks that revision
statelessly (falling back to a 2025-11-25 session when the server is of that era).

Every scenario: connect, list the tools (when the server declares them), call each with arguments
its input schema asks for (a ``schema`` object argument gets another tool's input schema), close.
Elicitation is accepted with the requested schema's defaults; sampling answers a fixed text; roots
lists one root. A scenario's ``toolCalls`` context names the calls to make instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from typing import Any

import httpx2

from mcpgen_runtime import RequestContext
from mcpgen_runtime.auth import ClientRegistration, OAuthClientAuth
from mcpgen_runtime.http_client import HttpClientTransport, http_client

from .server import older_handshake_tables, revision_module

CLIENT_INFO = {"name": "mcpgen-conformance-client", "version": "0.1.0"}


def defaults(schema: Any) -> dict[str, Any]:
    """Content for an elicitation form: each property's default."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    return {k: p["default"] for k, p in (props or {}).items() if isinstance(p, dict) and "default" in p}


def arguments_for(schema: Any) -> dict[str, Any]:
    """Arguments satisfying a tool's input schema: numbers 1, 2, …; strings 'test'; booleans true."""
    out: dict[str, Any] = {}
    n = 0
    props = schema.get("properties") if isinstance(schema, dict) else None
    for k, p in (props or {}).items():
        t = p.get("type") if isinstance(p, dict) else None
        if t in ("number", "integer"):
            n += 1
            out[k] = n
        elif t == "boolean":
            out[k] = True
        elif t == "string":
            out[k] = "test"
    return out


async def on_elicit(params: Any, ctx: RequestContext) -> Any:
    schema = getattr(params, "requested_schema", None)
    data = schema.to_wire() if schema is not None and hasattr(schema, "to_wire") else schema
    return {"action": "accept", "content": defaults(data)}


async def on_sample(params: Any, ctx: RequestContext) -> Any:
    return {"role": "assistant", "content": {"type": "text", "text": "This is a test response."}, "model": "conformance-model"}


async def on_roots(params: Any, ctx: RequestContext) -> Any:
    return {"roots": [{"uri": "file:///conformance/root", "name": "Conformance Root"}]}


async def call_all(client: Any, tools: list[Any]) -> None:
    listed = [t.to_wire() for t in tools]
    for tool in listed:
        args = arguments_for(tool.get("inputSchema"))
        other = next((t for t in listed if t["name"] != tool["name"]), None)
        props = (tool.get("inputSchema") or {}).get("properties") or {}
        if isinstance(props.get("schema"), dict) and props["schema"].get("type") == "object" and other is not None:
            args["schema"] = other.get("inputSchema")
        await client.call_tool(name=tool["name"], arguments=args)


REDIRECT = "http://localhost:3000/callback"
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


async def approve(url: str, redirect_uri: str) -> str:
    """The user-agent step: the authorization endpoint answers with a redirect, whose URL is the answer."""
    async with httpx2.AsyncClient(follow_redirects=False, timeout=20) as http:
        r = await http.get(url)
    location = r.headers.get("location")
    if not location:
        raise RuntimeError(f"authorization at {url} gave no redirect (HTTP {r.status_code})")
    return str(httpx2.URL(url).join(location))


def oauth_for(scenario: str, context: dict[str, Any]) -> OAuthClientAuth:
    """The authorization each auth scenario asks of the client: only its identity and grant differ."""

    def s(k: str) -> str | None:
        v = context.get(k)
        return v if isinstance(v, str) else None

    if scenario == "auth/client-credentials-basic":
        return OAuthClientAuth(grant="client_credentials", credentials=ClientRegistration(client_id=s("client_id") or "", client_secret=s("client_secret"), token_endpoint_auth_method="client_secret_basic"))
    if scenario == "auth/client-credentials-jwt":
        return OAuthClientAuth(
            grant="client_credentials",
            credentials=ClientRegistration(client_id=s("client_id") or "", token_endpoint_auth_method="private_key_jwt"),
            private_key=s("private_key_pem"),
            private_key_alg=s("signing_algorithm") or "ES256",
        )
    if scenario in ("auth/cross-app-access-complete-flow", "auth/enterprise-managed-authorization"):

        async def id_jag(issuer: str, resource: str, metadata: Any) -> str:
            # RFC 8693 token exchange at the IdP: an ID-JAG for the IdP's ID token
            form = {
                "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                "audience": issuer,
                "resource": resource,
                "subject_token": s("idp_id_token") or "",
                "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                "client_id": s("idp_client_id") or "",
            }
            async with httpx2.AsyncClient(timeout=20) as http:
                r = await http.post(s("idp_token_endpoint") or "", data=form)
            if r.status_code != 200:
                raise RuntimeError(f"ID-JAG request: HTTP {r.status_code} {r.text}")
            token: str = r.json()["access_token"]
            return token

        return OAuthClientAuth(
            grant="jwt-bearer",
            credentials=ClientRegistration(client_id=s("client_id") or "", client_secret=s("client_secret"), token_endpoint_auth_method="client_secret_basic"),
            offline_access=False,
            assertion=id_jag,
        )
    if scenario == "auth/wif-jwt-bearer":

        async def workload(issuer: str, resource: str, metadata: Any) -> str:
            return s("valid_jwt") or ""

        return OAuthClientAuth(grant="jwt-bearer", credentials=ClientRegistration(client_id=s("client_id") or "", token_endpoint_auth_method="none"), offline_access=False, assertion=workload)
    # a localhost redirect: a native application (SEP-837)
    metadata = {
        "client_name": "mcpgen-conformance-client",
        "redirect_uris": [REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    }
    if scenario == "auth/pre-registration":
        return OAuthClientAuth(user_agent=approve, redirect_uri=REDIRECT, client_metadata=metadata, credentials=ClientRegistration(client_id=s("client_id") or "", client_secret=s("client_secret")))
    # the DPoP scenarios (SEP-1932): DPoP-bound tokens, a proof on every request
    return OAuthClientAuth(user_agent=approve, redirect_uri=REDIRECT, client_metadata=metadata, client_metadata_url=CLIENT_METADATA_URL, dpop=scenario.startswith("auth/dpop"))


async def run(url: str, revision: str | None, scenario: str, context: dict[str, Any]) -> None:
    timeout = 60.0 if scenario.startswith("auth/") else 20.0
    auth = oauth_for(scenario, context) if scenario.startswith("auth/") else None
    http = None
    if auth is not None:  # an httpx2.Auth flow rides on an httpx2.AsyncClient; else the transport's aiohttp session
        http = http_client(timeout)
        http.auth = auth
    transport = HttpClientTransport(url, client=http, timeout=timeout, max_retries=3)
    if revision == "2026-07-28":
        mod = revision_module("2026-07-28")
        legacy = [revision_module("2025-11-25").TABLE, *older_handshake_tables("2025-11-25")]
        client = mod.Client(
            client_info=CLIENT_INFO,
            capabilities={"elicitation": {"form": {}}, "sampling": {}, "roots": {}},
            elicit=on_elicit,
            create_message=on_sample,
            list_roots=on_roots,
            fallback_tables=legacy,
            timeout=timeout,
        )
    else:
        mod = revision_module("2025-11-25")
        client = mod.Client(
            client_info=CLIENT_INFO,
            capabilities={"elicitation": {"form": {}}, "sampling": {}},
            elicit=on_elicit,
            create_message=on_sample,
            fallback_tables=older_handshake_tables("2025-11-25"),
            timeout=timeout,
        )
    server = await client.connect(transport)
    try:
        # the tools are listed first: their x-mcp-header annotations name the Mcp-Param-* headers
        tools = (await client.list_tools()).tools if server.capabilities.get("tools") is not None else []
        planned = context.get("toolCalls")
        if isinstance(planned, list):
            for c in planned:
                await client.call_tool(name=c["name"], arguments=c.get("arguments") or {})
        else:
            await call_all(client, tools)
    finally:
        await client.close()
        if http is not None:
            await http.aclose()
        if auth is not None:
            await auth.aclose()


def main() -> int:
    argv = sys.argv[1:]
    url = argv[-1]
    revision = argv[argv.index("--rev") + 1] if "--rev" in argv else None
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT", "{}") or "{}")
    try:
        asyncio.run(run(url, revision, scenario, context))
    except BaseException as e:
        sys.stderr.write(f"conformance client ({scenario}): {e!r}\n{traceback.format_exc()}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
