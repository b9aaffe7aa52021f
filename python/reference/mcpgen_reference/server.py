"""The Python reference server: the fixtures MCP conformance suites call, with the names of the
TypeScript reference server (reference/server.ts, reference/stateless.ts), on the generated
``Server`` of any revision.

Tools of every revision: ``echo``, ``test_simple_text``, ``test_image_content``,
``test_audio_content``, ``test_embedded_resource``, ``test_multiple_content_types``,
``json_schema_2020_12_tool``, ``test_tool_with_progress``, ``test_error_handling``. Handshake
revisions (a session: 2025-11-25 and earlier) add the fixtures that need one:
``test_reconnection``, ``test_tool_with_logging``, ``test_sampling``, ``test_elicitation``,
``test_elicitation_sep1034_defaults``, ``test_elicitation_sep1330_enums`` (server→client requests
and a resumable SSE connection have no stateless counterpart under these names). Stateless
revisions list their own counterparts instead: the multi round-trip fixtures
(``test_input_required_result_*``), ``test_missing_capability``, ``test_logging_tool``,
``test_trigger_tool_change``, ``test_x_mcp_header`` … Progress and log messages of a call go out
on behalf of its request (``ctx.send_progress``, ``ctx.log``: over Streamable HTTP on the
request's own stream, never the standalone GET stream).
Resources: ``test://static-text``, ``test://static-binary``, ``test://watched-resource``, template
``test://template/{id}/data``. Prompts: ``test_simple_prompt``, ``test_prompt_with_arguments``,
``test_prompt_with_embedded_resource``, ``test_prompt_with_image``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from mcpgen_runtime import ProtocolTable, RequestContext, ServerSession
from mcpgen_runtime.features import ServerFeatures, text_result
from mcpgen_runtime.stateless import (
    RequestStateSealer,
    client_capabilities_of,
    elicit,
    input_required,
    list_roots,
    read_input,
    require_client_capabilities,
    sample,
)

PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
"""A 1×1 transparent PNG."""
STATIC_TEXT = "This is the content of the static text resource."
WAV_SILENCE = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
"""A 1 ms, 8 kHz, 8-bit mono WAV of silence."""
SERVER_INFO = {"name": "mcpgen-reference-server", "version": "0.1.0"}
INSTRUCTIONS = "mcpgen reference server: test tools, resources and prompts."


def revision_module(rev: str) -> Any:
    """The generated package of a revision (``mcp_2025_11_25`` for ``2025-11-25``)."""
    return importlib.import_module("mcp_" + rev.replace("-", "_").replace(".", "_"))


def text(t: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": t}]}


def _failure(e: BaseException) -> str:
    return getattr(e, "message", None) or str(e) or type(e).__name__


async def _ask(ctx: RequestContext, method: str, params: dict[str, Any]) -> dict[str, Any]:
    session: ServerSession = ctx.session
    return await session.request(method, params, ctx=ctx)


def reference_features(progress_delay: float = 0.01, lifecycle: str = "handshake") -> ServerFeatures:
    """The tools, resources and prompts a revision serves (one object for any number of sessions).

    ``lifecycle`` is the served table's: ``"stateless"`` leaves out the fixtures that need a
    session (``add_session_fixtures``); a stateless revision adds its own counterparts
    (``add_stateless_fixtures``)."""
    f = ServerFeatures()
    f.tool("echo", description="Echoes the text argument", input_schema={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}, handler=lambda a: text(str(a["text"])))
    f.tool("test_simple_text", description="Returns a simple text response", handler=lambda a: text("This is a simple text response for testing."))
    f.tool("test_image_content", description="Returns an image", handler=lambda a: {"content": [{"type": "image", "data": PNG_1X1, "mimeType": "image/png"}]})
    f.tool("test_audio_content", description="Returns audio", handler=lambda a: {"content": [{"type": "audio", "data": WAV_SILENCE, "mimeType": "audio/wav"}]})
    embedded = {"type": "resource", "resource": {"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}
    f.tool("test_embedded_resource", description="Returns an embedded resource", handler=lambda a: {"content": [embedded]})
    f.tool(
        "test_multiple_content_types",
        description="Returns text, an image and an embedded resource",
        handler=lambda a: {
            "content": [
                {"type": "text", "text": "Multiple content types test:"},
                {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": json.dumps({"test": "data", "value": 123}, separators=(",", ":"))}},
            ]
        },
    )
    f.tool(
        "json_schema_2020_12_tool",
        description="Tool with JSON Schema 2020-12 features",
        input_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": False,
        },
        handler=lambda a: text(f"JSON Schema 2020-12 tool called with: {json.dumps(a, separators=(',', ':'))}"),
    )

    async def progress(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        for p in (0, 50, 100):
            await ctx.send_progress(p, 100, f"Completed step {p // 50 + 1} of 3")
            await asyncio.sleep(progress_delay)
        return text("Progress completed")

    f.tool("test_tool_with_progress", description="Reports progress 0, 50, 100 of 100, then returns", handler=progress)

    f.tool("test_error_handling", description="Always fails with a tool execution error", handler=lambda a: {**text("This tool intentionally returns an error for testing"), "isError": True})
    if lifecycle != "stateless":
        add_session_fixtures(f, progress_delay)
    f.resource("test://static-text", "static-text", title="Static Text Resource", mime_type="text/plain", text=STATIC_TEXT)
    f.resource("test://static-binary", "static-binary", title="Static Binary Resource", mime_type="image/png", blob=PNG_1X1)
    f.resource("test://watched-resource", "watched-resource", title="Watched Resource", description="A resource clients may subscribe to", mime_type="text/plain", text="Watched resource content")
    f.resource_template(
        "test://template/{id}/data",
        "template",
        title="Resource Template",
        mime_type="application/json",
        read=lambda uri, v: [{"uri": uri, "mimeType": "application/json", "text": json.dumps({"id": v["id"], "templateTest": True, "data": f"Data for ID: {v['id']}"}, separators=(",", ":"))}],
        complete={"id": lambda value: [x for x in ("1", "2", "3", "42") if x.startswith(value)]},
    )
    f.prompt("test_simple_prompt", description="A prompt without arguments", get=lambda a: [{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
    f.prompt(
        "test_prompt_with_arguments",
        description="A prompt with two required arguments",
        arguments=[
            {"name": "arg1", "description": "First test argument", "required": True, "complete": lambda v: [x for x in ("alpha", "beta", "gamma") if x.startswith(v)]},
            {"name": "arg2", "description": "Second test argument", "required": True},
        ],
        get=lambda a: [{"role": "user", "content": {"type": "text", "text": f"Prompt with arguments: arg1='{a['arg1']}', arg2='{a['arg2']}'"}}],
    )
    f.prompt(
        "test_prompt_with_embedded_resource",
        description="A prompt that embeds the resource named by its argument",
        arguments=[{"name": "resourceUri", "description": "URI of the resource to embed", "required": True}],
        get=lambda a: [
            {"role": "user", "content": {"type": "resource", "resource": {"uri": a["resourceUri"], "mimeType": "text/plain", "text": "Embedded resource content for testing."}}},
            {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
        ],
    )
    f.prompt(
        "test_prompt_with_image",
        description="A prompt with an image",
        get=lambda a: [
            {"role": "user", "content": {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}},
            {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
        ],
    )
    return f


def add_session_fixtures(f: ServerFeatures, progress_delay: float) -> None:
    """The fixtures that need a handshake revision's session: server→client requests (sampling,
    elicitation), a resumable SSE connection, logging at the session's level. A stateless
    revision's counterparts are ``add_stateless_fixtures``' (``test_input_required_result_*``,
    ``test_logging_tool``)."""

    async def reconnection(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        http_session = ctx.info.get("http_session")
        if http_session is None:
            return text("Reconnection test completed (no SSE connection to close on this transport)")
        # a related notification first: the reply becomes an SSE stream (primed, so resumable)
        await ctx.send_notification("notifications/message", {"level": "info", "logger": "reference-server", "data": "closing the SSE connection"})
        await asyncio.sleep(0.01)
        http_session.close_sse_connection(ctx.request_id)
        await asyncio.sleep(0.1)
        return text("Reconnection test completed successfully")

    f.tool("test_reconnection", description="Closes the SSE connection of its own request mid-call; the result arrives after the client resumes", handler=reconnection)

    async def logging_tool(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        for m in ("Tool execution started", "Tool processing data", "Tool execution completed"):
            # on behalf of its request (relatedRequestId): over Streamable HTTP on the request's own
            # stream, not the session's standalone GET stream (2025-11-25 basic/transports)
            await ctx.log("info", m, "reference-server")
            await asyncio.sleep(progress_delay)
        return text("Logging completed")

    f.tool("test_tool_with_logging", description="Sends three log messages (info) on behalf of its request while running", handler=logging_tool)

    async def sampling(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        try:
            r = await _ask(ctx, "sampling/createMessage", {"messages": [{"role": "user", "content": {"type": "text", "text": a["prompt"]}}], "maxTokens": 100})
        except Exception as e:
            return {**text(f"Sampling failed: {_failure(e)}"), "isError": True}
        c = r.get("content")
        return text(f"LLM response: {c.get('text') if isinstance(c, dict) and c.get('type') == 'text' else json.dumps(c)}")

    f.tool("test_sampling", description="Asks the client to sample an LLM with the prompt argument", input_schema={"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}, handler=sampling)

    async def elicitation(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        schema = {
            "type": "object",
            "properties": {"username": {"type": "string", "description": "User's response"}, "email": {"type": "string", "description": "User's email address"}},
            "required": ["username", "email"],
        }
        try:
            r = await _ask(ctx, "elicitation/create", {"message": a["message"], "requestedSchema": schema})
        except Exception as e:
            return {**text(f"Elicitation failed: {_failure(e)}"), "isError": True}
        content = f", content={json.dumps(r['content'], separators=(',', ':'))}" if r.get("content") else ""
        return text(f"User response: action={r.get('action')}{content}")

    f.tool("test_elicitation", description="Asks the user for a username and an email through elicitation", input_schema={"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}, handler=elicitation)

    def elicit_tool(message: str, schema: dict[str, Any]) -> Callable[..., Any]:
        async def run(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
            try:
                r = await _ask(ctx, "elicitation/create", {"message": message, "requestedSchema": schema})
            except Exception as e:
                return {**text(f"Elicitation failed: {_failure(e)}"), "isError": True}
            content = f", content={json.dumps(r['content'], separators=(',', ':'))}" if r.get("content") else ""
            return text(f"Elicitation completed: action={r.get('action')}{content}")

        return run

    f.tool(
        "test_elicitation_sep1034_defaults",
        description="Elicitation whose fields carry default values (SEP-1034)",
        handler=elicit_tool(
            "Please review and update the form fields with defaults",
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {"type": "string", "description": "User status", "enum": ["active", "inactive", "pending"], "default": "active"},
                    "verified": {"type": "boolean", "description": "Verification status", "default": True},
                },
                "required": [],
            },
        ),
    )
    f.tool(
        "test_elicitation_sep1330_enums",
        description="Elicitation with every enum schema form (SEP-1330)",
        handler=elicit_tool(
            "Please select options from the enum fields",
            {
                "type": "object",
                "properties": {
                    "untitledSingle": {"type": "string", "description": "Select one option", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {
                        "type": "string",
                        "description": "Select one option with titles",
                        "oneOf": [{"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"}, {"const": "value3", "title": "Third Option"}],
                    },
                    "legacyEnum": {"type": "string", "description": "Select one option (legacy)", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
                    "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                    "titledMulti": {
                        "type": "array",
                        "description": "Select multiple options with titles",
                        "minItems": 1,
                        "maxItems": 3,
                        "items": {"anyOf": [{"const": "value1", "title": "First Choice"}, {"const": "value2", "title": "Second Choice"}, {"const": "value3", "title": "Third Choice"}]},
                    },
                },
                "required": [],
            },
        ),
    )


def _accepted(answer: Any) -> dict[str, Any] | None:
    content = answer.get("content") if isinstance(answer, dict) and answer.get("action") == "accept" else None
    return content if isinstance(content, dict) else None


def _sampled(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return None
    c = answer.get("content")
    c = c[0] if isinstance(c, list) and c else c
    return c.get("text") if isinstance(c, dict) and c.get("type") == "text" and isinstance(c.get("text"), str) else None


def _roots(answer: Any) -> list[dict[str, Any]] | None:
    if isinstance(answer, dict) and isinstance(answer.get("roots"), list):
        return [r for r in answer["roots"] if isinstance(r, dict)]
    return None


def _ask_name(message: str = "What is your name?") -> dict[str, Any]:
    return elicit({"message": message, "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}})


def _ask_confirm() -> dict[str, Any]:
    return elicit({"message": "Please confirm", "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}})


def _ask_capital() -> dict[str, Any]:
    return sample({"messages": [{"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}}], "maxTokens": 100})


def add_stateless_fixtures(f: ServerFeatures) -> None:
    """The fixtures of the stateless revisions (multi round-trip requests, per-request capabilities
    and log level, list changes for listen streams)."""

    def sealer(ctx: RequestContext) -> RequestStateSealer:
        sealer_: RequestStateSealer = ctx.session.request_state
        return sealer_

    def missing_capability(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        require_client_capabilities(ctx, {"sampling": {}})
        return text("The client declared sampling")

    f.tool("test_missing_capability", description="Needs the sampling client capability: -32021 unless the request declares it", handler=missing_capability)

    def streaming_elicitation(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        responses, _ = read_input(ctx.params)
        name = (_accepted(responses.get("user_name")) or {}).get("name")
        if not isinstance(name, str):
            return input_required(input_requests={"user_name": _ask_name()})
        return text(f"Hello, {name}!")

    f.tool("test_streaming_elicitation", description="Asks for a name through an input_required result (never a request on the response stream)", handler=streaming_elicitation)
    f.tool("test_input_required_result_elicitation", description="input_required: one elicitation (user_name), then greets", handler=streaming_elicitation)

    async def logging_tool(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        for m in ("Tool execution started", "Tool processing data", "Tool execution completed"):
            await ctx.log("info", m, "reference-server")
        return text("Logging completed")

    f.tool("test_logging_tool", description='Logs three messages at info: sent only when the request set _meta["io.modelcontextprotocol/logLevel"] at or below info', handler=logging_tool)
    toggles = {"tool": False, "prompt": False}

    def trigger_tool(a: dict[str, Any]) -> dict[str, Any]:
        toggles["tool"] = not toggles["tool"]
        if toggles["tool"]:
            f.tool("test_dynamic_tool", description="Added by test_trigger_tool_change", handler=lambda a: text("dynamic"))
        else:
            f.remove_tool("test_dynamic_tool")
        return text(f"test_dynamic_tool {'added' if toggles['tool'] else 'removed'}")

    f.tool("test_trigger_tool_change", description="Adds or removes the tool test_dynamic_tool (tools list_changed)", handler=trigger_tool)

    def trigger_prompt(a: dict[str, Any]) -> dict[str, Any]:
        toggles["prompt"] = not toggles["prompt"]
        if toggles["prompt"]:
            f.prompt("test_dynamic_prompt", description="Added by test_trigger_prompt_change", get=lambda a: [{"role": "user", "content": {"type": "text", "text": "dynamic"}}])
        else:
            f.remove_prompt("test_dynamic_prompt")
        return text(f"test_dynamic_prompt {'added' if toggles['prompt'] else 'removed'}")

    f.tool("test_trigger_prompt_change", description="Adds or removes the prompt test_dynamic_prompt (prompts list_changed)", handler=trigger_prompt)
    f.tool(
        "test_x_mcp_header",
        description="Echoes its region argument, mirrored into the Mcp-Param-Region header",
        input_schema={"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}},
        handler=lambda a: text(f"region={a.get('region')}"),
    )
    f.tool(
        "json_schema_2020_12_tool",
        description="Tool with JSON Schema 2020-12 features",
        input_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"},
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": False,
        },
        handler=lambda a: text(f"JSON Schema 2020-12 tool called with: {json.dumps(a, separators=(',', ':'))}"),
    )

    def sampling_tool(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        responses, _ = read_input(ctx.params)
        answer = _sampled(responses.get("capital_question"))
        if answer is None:
            return input_required(input_requests={"capital_question": _ask_capital()})
        return text(f"LLM response: {answer}")

    f.tool("test_input_required_result_sampling", description="input_required: one sampling request (capital_question), then returns the answer", handler=sampling_tool)

    def roots_tool(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        responses, _ = read_input(ctx.params)
        roots = _roots(responses.get("client_roots"))
        if roots is None:
            return input_required(input_requests={"client_roots": list_roots()})
        return text(f"Client roots: {', '.join(str(r.get('uri')) for r in roots) or '(none)'}")

    f.tool("test_input_required_result_list_roots", description="input_required: roots/list (client_roots), then names the roots", handler=roots_tool)

    def request_state_tool(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        responses, state = read_input(ctx.params)
        ok = _accepted(responses.get("confirm"))
        if state is None or ok is None:
            return input_required(input_requests={"confirm": _ask_confirm()}, request_state=sealer(ctx).seal(ctx, {"tool": "request_state"}))
        sealer(ctx).open(state, ctx)
        return text(f"state-ok: confirmed={'true' if ok.get('ok') is True else str(ok.get('ok')).lower()}")

    f.tool("test_input_required_result_request_state", description="input_required with sealed requestState; answers state-ok once the state verifies", handler=request_state_tool)

    def greeting() -> dict[str, Any]:
        return sample({"messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}], "maxTokens": 50})

    def multiple_tool(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        r, state = read_input(ctx.params)
        requests: dict[str, Any] = {}
        name = (_accepted(r.get("user_name")) or {}).get("name")
        greet = _sampled(r.get("greeting"))
        roots = _roots(r.get("client_roots"))
        if not isinstance(name, str):
            requests["user_name"] = _ask_name()
        if greet is None:
            requests["greeting"] = greeting()
        if roots is None:
            requests["client_roots"] = list_roots()
        if state is not None:
            sealer(ctx).open(state, ctx)
        if requests or state is None:
            return input_required(
                input_requests=requests or {"user_name": _ask_name(), "greeting": greeting(), "client_roots": list_roots()},
                request_state=sealer(ctx).seal(ctx, {"tool": "multiple_inputs"}),
            )
        assert roots is not None
        return text(f"{greet} {name} (roots: {', '.join(str(x.get('uri')) for x in roots)})")

    f.tool("test_input_required_result_multiple_inputs", description="input_required: elicitation, sampling and roots/list at once, with requestState", handler=multiple_tool)

    def multi_round(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        r, state = read_input(ctx.params)

        def step1() -> dict[str, Any]:
            return input_required(input_requests={"step1": _ask_name("Step 1: What is your name?")}, request_state=sealer(ctx).seal(ctx, {"round": 1}))

        if state is None:
            return step1()
        data = sealer(ctx).open(state, ctx) or {}
        if data.get("round") == 1:
            name = (_accepted(r.get("step1")) or {}).get("name")
            if not isinstance(name, str):
                return step1()
            return input_required(
                input_requests={"step2": elicit({"message": "Step 2: What is your favorite color?", "requestedSchema": {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}})},
                request_state=sealer(ctx).seal(ctx, {"round": 2, "name": name}),
            )
        color = (_accepted(r.get("step2")) or {}).get("color")
        if not isinstance(color, str):
            return step1()
        return text(f"{data.get('name')} likes {color}")

    f.tool("test_input_required_result_multi_round", description="input_required twice (step1: name, step2: colour), the round sealed in requestState", handler=multi_round)

    def tampered(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        r, state = read_input(ctx.params)
        if state is None:
            return input_required(input_requests={"confirm": _ask_confirm()}, request_state=sealer(ctx).seal(ctx, {"tool": "tampered_state"}))
        sealer(ctx).open(state, ctx)
        if _accepted(r.get("confirm")) is None:
            return input_required(input_requests={"confirm": _ask_confirm()}, request_state=state)
        return text("state verified")

    f.tool("test_input_required_result_tampered_state", description="input_required with HMAC-sealed requestState; a tampered state is refused with -32602", handler=tampered)

    def capabilities_tool(a: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
        caps = client_capabilities_of(ctx)
        r, _ = read_input(ctx.params)
        requests: dict[str, Any] = {}
        if caps.get("elicitation") is not None and not isinstance((_accepted(r.get("user_name")) or {}).get("name"), str):
            requests["user_name"] = _ask_name()
        if caps.get("sampling") is not None and _sampled(r.get("capital_question")) is None:
            requests["capital_question"] = _ask_capital()
        if caps.get("roots") is not None and _roots(r.get("client_roots")) is None:
            requests["client_roots"] = list_roots()
        if requests:
            return input_required(input_requests=requests)
        answered = [k for k in r if k in ("user_name", "capital_question", "client_roots")]
        return text(f"Answered: {', '.join(answered) or 'nothing (no input capability declared)'}")

    f.tool("test_input_required_result_capabilities", description="input_required asking only for what the request declared among elicitation, sampling and roots", handler=capabilities_tool)

    def prompt_get(a: dict[str, Any], ctx: RequestContext) -> Any:
        responses, _ = read_input(ctx.params)
        context = (_accepted(responses.get("user_context")) or {}).get("context")
        if not isinstance(context, str):
            return input_required(
                input_requests={"user_context": elicit({"message": "What context should the prompt use?", "requestedSchema": {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}})}
            )
        return [{"role": "user", "content": {"type": "text", "text": f"Use this context: {context}"}}]

    f.prompt("test_input_required_result_prompt", description="input_required on prompts/get: asks for the context first", get=prompt_get)


def make_server(rev: str, *, features: ServerFeatures | None = None, fallback_tables: Sequence[ProtocolTable] | None = None, request_state_secret: bytes | str | None = None) -> ServerSession:
    """A reference server of revision ``rev`` (its fixtures, its generated ``Server``)."""
    mod = revision_module(rev)
    table: ProtocolTable = mod.TABLE
    if features is None:
        features = reference_features(lifecycle=table.lifecycle)
        if table.lifecycle == "stateless":
            add_stateless_fixtures(features)
    if fallback_tables is None:
        fallback_tables = older_handshake_tables(rev) if table.lifecycle == "handshake" else ()
    server: ServerSession = mod.Server(
        server_info=SERVER_INFO,
        handlers=features,
        capabilities=features.capabilities(),
        instructions=INSTRUCTIONS,
        fallback_tables=fallback_tables,
        request_state_secret=request_state_secret,
    )
    return server


KNOWN_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28")


def older_handshake_tables(rev: str) -> list[ProtocolTable]:
    """The tables of the generated handshake revisions older than ``rev``, newest first."""
    out: list[ProtocolTable] = []
    for r in sorted(KNOWN_REVISIONS, reverse=True):
        if r >= rev:
            continue
        try:
            t: ProtocolTable = revision_module(r).TABLE
        except ImportError:
            continue
        if t.lifecycle == "handshake" and t.http_transport == "streamable-http":
            out.append(t)
    return out
