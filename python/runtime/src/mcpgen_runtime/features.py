"""``ServerFeatures``: tools, resources and templates, prompts, completion — the handlers of a server.

Register what the server offers, then pass the object as the generated ``Server``'s ``handlers``
(it implements every handler of every revision's ``ServerHandlers``; a category with nothing
registered answers -32601) and ``features.capabilities()`` as its capabilities. Registering or
removing after a session started sends the list change (``notifications/tools/list_changed`` …):
to the client (handshake) or the listen streams that asked for it (stateless).

Tools (2025-11-25 ``server/tools``, Error Handling): an unknown tool is -32602; arguments that fail
the tool's ``inputSchema`` (JSON Schema 2020-12 unless ``$schema`` names draft-07) are a result
with ``isError: true`` naming each failing path (the handler is not called); a handler's exception
other than :class:`RpcError` is such a result too; ``structuredContent`` that fails ``outputSchema``
is -32603. Resources: an unknown URI is -32602 (2026-07-28) or -32002 (``RESOURCE_NOT_FOUND`` of
older revisions). Lists are paged by ``page_size`` (default: one page) with opaque cursors; a
cursor this server did not issue is -32602.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import inspect
import json
import logging
import re
import weakref
from collections.abc import Awaitable, Callable, Mapping, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import unquote

import jsonschema
import jsonschema.exceptions

from .engine import RequestContext, UnserializableResult, dump
from .http_headers import ParamHeader, param_headers
from .jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND, RpcError, js_json, loads
from .stateless import LOG_LEVEL_META
from .tasks import TaskStore

ToolHandler = Callable[..., Any]
"""``(arguments: dict, ctx) -> result``: a ``CallToolResult`` model or dict, a string (one text
block), or an ``InputRequiredResult`` (stateless revisions); may be async."""

RESOURCE_NOT_FOUND = -32002

log = logging.getLogger("mcpgen_runtime.features")

_DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": jsonschema.Draft202012Validator,
    "http://json-schema.org/draft-07/schema#": jsonschema.Draft7Validator,
    "http://json-schema.org/draft-07/schema": jsonschema.Draft7Validator,
}


def compile_schema(schema: Mapping[str, Any], what: str) -> jsonschema.protocols.Validator:
    """A validator of a tool schema (its ``$schema`` dialect, default 2020-12); ValueError when the
    dialect is unsupported or the schema is invalid. Remote ``$ref`` are never fetched."""
    dialect = schema.get("$schema")
    cls = _DIALECTS.get(dialect) if isinstance(dialect, str) else jsonschema.Draft202012Validator
    if cls is None:
        raise ValueError(f"{what}: unsupported JSON Schema dialect {dialect!r} (supported: 2020-12, draft-07)")
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as e:
        raise ValueError(f"{what}: invalid JSON Schema: {e.message}") from None
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def describe_errors(validator: jsonschema.protocols.Validator, instance: Any, limit: int = 5) -> list[str]:
    """Each failing path and constraint, e.g. ``passengers: 0 is less than the minimum of 1``."""
    out = []
    for e in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))[:limit]:
        path = ".".join(str(p) for p in e.absolute_path) or "(arguments)"
        out.append(f"{path}: {e.message}")
    return out


_MAX_REFS = 64


def with_defaults(schema: Any, value: Any, root: Any = None) -> Any:
    """``value`` with the JSON Schema ``default`` of each absent member of ``properties`` filled in
    (a deep copy of it), where validators with ``useDefaults`` fill them: into the members and
    array items the value has (``properties``, ``patternProperties``, ``additionalProperties``,
    ``prefixItems``, ``items``), through ``allOf`` and local ``$ref`` (``#``, ``#/…``), never into
    ``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else`` (which branch holds is not known before
    validation); no array item is added. Pure: ``value`` is not changed (the parts that gain a
    member are copies); the same object when nothing is filled."""
    return _defaults(schema, value, schema if root is None else root, 0)


def _defaults(schema: Any, value: Any, root: Any, refs: int) -> Any:
    if not isinstance(schema, dict):
        return value
    out = value
    ref = schema.get("$ref")
    if isinstance(ref, str) and refs < _MAX_REFS:
        target = _resolve_ref(root, ref)
        if target is not None:
            out = _defaults(target, out, root, refs + 1)
    all_of = schema.get("allOf")
    if isinstance(all_of, list):
        for sub in all_of:
            out = _defaults(sub, out, root, refs)
    if isinstance(out, dict):
        p, pp = schema.get("properties"), schema.get("patternProperties")
        props: dict[str, Any] = p if isinstance(p, dict) else {}
        patterns: dict[str, Any] = pp if isinstance(pp, dict) else {}
        copy = out
        for key, sub in props.items():
            if key not in copy and isinstance(sub, dict) and "default" in sub:
                if copy is out:
                    copy = dict(out)
                copy[key] = _defaults(sub, deepcopy(sub["default"]), root, refs)
        for key in list(copy):
            subs = [props[key]] if key in props else []
            subs += [sub for pattern, sub in patterns.items() if _matches(pattern, key)]
            if not subs and "additionalProperties" in schema:
                subs = [schema["additionalProperties"]]
            before = after = copy[key]
            for sub in subs:
                after = _defaults(sub, after, root, refs)
            if after is not before:
                if copy is out:
                    copy = dict(out)
                copy[key] = after
        return copy
    if isinstance(out, list):
        pi = schema.get("prefixItems")
        prefix: list[Any] = pi if isinstance(pi, list) else []
        items = list(out)
        changed = False
        for i, item in enumerate(out):
            after = _defaults(prefix[i] if i < len(prefix) else schema.get("items"), item, root, refs)
            if after is not item:
                items[i], changed = after, True
        return items if changed else out
    return out


def _matches(pattern: str, key: str) -> bool:
    try:
        return re.search(pattern, key) is not None
    except re.error:
        return False


def _resolve_ref(root: Any, ref: str) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    at = root
    for raw in ref[2:].split("/"):
        key = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(at, dict) and key in at:
            at = at[key]
        elif isinstance(at, list) and key.isdigit() and int(key) < len(at):
            at = at[int(key)]
        else:
            return None
    return at


#: The longest cursor a list reads (TypeScript's list-pages.ts): a peer's longer text is not
#: decoded or echoed in the error.
MAX_CURSOR_CHARS: Final = 256


@dataclass
class Tool:
    """A registered tool: its definition (what ``tools/list`` shows) and its handler."""

    name: str
    handler: ToolHandler
    description: str | None = None
    input_schema: dict[str, Any] = field(default_factory=lambda: {"type": "object"})
    output_schema: dict[str, Any] | None = None
    title: str | None = None
    annotations: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    _input: Any = None
    #: Whether ``input_schema`` may hold a ``default`` (then the arguments get them: :func:`with_defaults`).
    _defaults: bool = False
    _output: Any = None
    headers: list[ParamHeader] = field(default_factory=list)

    def definition(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "inputSchema": self.input_schema, **self.extra}
        for key, value in (("title", self.title), ("description", self.description), ("outputSchema", self.output_schema), ("annotations", self.annotations), ("_meta", self.meta)):
            if value is not None:
                d[key] = value
        return d


@dataclass
class Resource:
    """A registered resource: its definition and its contents (``text``, ``blob`` or ``read()``)."""

    uri: str
    name: str
    text: str | None = None
    blob: str | None = None
    read: Callable[..., Any] | None = None
    mime_type: str | None = None
    title: str | None = None
    description: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def definition(self) -> dict[str, Any]:
        d: dict[str, Any] = {"uri": self.uri, "name": self.name, **self.extra}
        for key, value in (("title", self.title), ("description", self.description), ("mimeType", self.mime_type)):
            if value is not None:
                d[key] = value
        return d


_EXPR = re.compile(r"\{([+#./;?&]?)([^}]*)\}")


class UriTemplate:
    """An RFC 6570 URI template, matched against URIs (levels 1-3 operators; ``{var*}`` as one value).

    ``match(uri)`` gives the variables (percent-decoded) or None.
    """

    def __init__(self, template: str) -> None:
        self.template = template
        self.variables: list[str] = []
        pattern = ["^"]
        pos = 0
        self._query: list[str] = []
        for m in _EXPR.finditer(template):
            pattern.append(re.escape(template[pos : m.start()]))
            op, names = m.group(1), [n.rstrip("*") for n in m.group(2).split(",") if n]
            self.variables.extend(names)
            if op in ("?", "&"):
                self._query.extend(names)
                pattern.append(r"(?:[?&][^#]*)?")
            elif op in ("+", "#"):
                prefix = "#" if op == "#" else ""
                pattern.append(re.escape(prefix) + ",".join(f"(?P<{self._group(n)}>.*?)" for n in names))
            elif op in ("/", ".", ";"):
                sep = re.escape(op)
                pattern.append("".join(f"(?:{sep}{re.escape(n) + '=' if op == ';' else ''}(?P<{self._group(n)}>[^/?#.;]*))?" for n in names))
            else:
                pattern.append(",".join(f"(?P<{self._group(n)}>[^/?#,]+)" for n in names))
            pos = m.end()
        pattern.append(re.escape(template[pos:]) + "$")
        self._re = re.compile("".join(pattern))

    @staticmethod
    def _group(name: str) -> str:
        return "v_" + re.sub(r"\W", "_", name)

    def match(self, uri: str) -> dict[str, str] | None:
        from urllib.parse import parse_qs, unquote, urlsplit

        m = self._re.match(uri)
        if m is None:
            return None
        out: dict[str, str] = {}
        for name in self.variables:
            g = self._group(name)
            if g in self._re.groupindex and m.group(g) is not None:
                out[name] = unquote(m.group(g))
        if self._query:
            q = parse_qs(urlsplit(uri).query)
            for name in self._query:
                if name in q:
                    out[name] = q[name][0]
        return out


@dataclass
class ResourceTemplate:
    """A registered resource template: ``read(uri, variables, ctx)`` gives the contents of a matching URI."""

    uri_template: str
    name: str
    read: Callable[..., Any]
    mime_type: str | None = None
    title: str | None = None
    description: str | None = None
    complete: dict[str, Callable[..., Any]] = field(default_factory=dict)
    matcher: UriTemplate | None = None

    def definition(self) -> dict[str, Any]:
        d: dict[str, Any] = {"uriTemplate": self.uri_template, "name": self.name}
        for key, value in (("title", self.title), ("description", self.description), ("mimeType", self.mime_type)):
            if value is not None:
                d[key] = value
        return d


@dataclass
class PromptArgument:
    """An argument of a prompt; ``complete(value, context)`` suggests values for it."""

    name: str
    description: str | None = None
    required: bool = False
    complete: Callable[..., Any] | None = None


@dataclass
class Prompt:
    """A registered prompt: ``get(arguments, ctx)`` returns its messages (or a ``GetPromptResult``)."""

    name: str
    get: Callable[..., Any]
    description: str | None = None
    title: str | None = None
    arguments: list[PromptArgument] = field(default_factory=list)

    def definition(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name}
        if self.title is not None:
            d["title"] = self.title
        if self.description is not None:
            d["description"] = self.description
        if self.arguments:
            d["arguments"] = [
                {"name": a.name, **({"description": a.description} if a.description else {}), **({"required": True} if a.required else {})} for a in self.arguments
            ]
        return d


@functools.lru_cache(maxsize=1024)
def _arity(fn: Callable[..., Any]) -> int | None:
    """How many positional arguments ``fn`` takes (None: unknown); remembered, as
    ``inspect.signature`` costs more than a whole tool call."""
    try:
        return len(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    """Calls ``fn`` with as many of ``args`` as it takes; awaits the result when it is awaitable."""
    try:
        n = _arity(fn)
    except TypeError:  # an unhashable callable
        n = None
    r = fn(*args[:n])
    if inspect.isawaitable(r):
        r = await r
    return r


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    """A tool result of one text block."""
    out: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if is_error:
        out["isError"] = True
    return out


class ServerFeatures:
    """The registries of a server's tools, resources, templates and prompts (see the module doc).

    ``page_size``: items per page of the list methods (None: one page).
    """

    def __init__(self, *, page_size: int | None = None, tasks: TaskStore | None = None) -> None:
        #: Runs ``tools/call`` as tasks where asked (2025-11-25); None: tasks are not offered.
        self.tasks = tasks
        self.tools: dict[str, Tool] = {}
        self.resources: dict[str, Resource] = {}
        self.templates: dict[str, ResourceTemplate] = {}
        self.prompts: dict[str, Prompt] = {}
        self.page_size = page_size
        self._sessions: weakref.WeakSet[Any] = weakref.WeakSet()
        self.logging = True

    # ---- registration ----

    def tool(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        input_schema: Mapping[str, Any] | None = None,
        output_schema: Mapping[str, Any] | None = None,
        title: str | None = None,
        annotations: Mapping[str, Any] | None = None,
        meta: Mapping[str, Any] | None = None,
        handler: ToolHandler | None = None,
        **extra: Any,
    ) -> Any:
        """Registers a tool: ``features.tool("echo", handler=fn, …)``, or as a decorator
        (``@features.tool(description=…)``, the name defaulting to the function's). Schemas are
        checked now (ValueError). ``handler(arguments, ctx)`` may be async."""

        def register(fn: ToolHandler) -> ToolHandler:
            tool_name = name or fn.__name__
            schema = dict(input_schema) if input_schema is not None else {"type": "object"}
            t = Tool(tool_name, fn, description or inspect.getdoc(fn), schema, dict(output_schema) if output_schema is not None else None, title, dict(annotations) if annotations else None, dict(meta) if meta else None, dict(extra))
            t._input = compile_schema(schema, f"tool {tool_name}: inputSchema")
            t._defaults = '"default"' in json.dumps(schema)
            try:
                t.headers = param_headers(schema)
            except ValueError as e:
                raise ValueError(f"tool {tool_name}: inputSchema: {e}") from None
            if t.output_schema is not None:
                t._output = compile_schema(t.output_schema, f"tool {tool_name}: outputSchema")
            self.tools[tool_name] = t
            self._changed("notifications/tools/list_changed")
            return fn

        if handler is not None:
            return register(handler)
        return register

    def remove_tool(self, name: str) -> None:
        """Removes a tool (sends the list change when it was there)."""
        if self.tools.pop(name, None) is not None:
            self._changed("notifications/tools/list_changed")

    def resource(self, uri: str, name: str, *, text: str | None = None, blob: str | None = None, read: Callable[..., Any] | None = None, mime_type: str | None = None, title: str | None = None, description: str | None = None, **extra: Any) -> None:
        """Registers a resource with fixed ``text`` or base64 ``blob`` contents, or ``read(uri, ctx)``
        returning its contents (a list of content objects, or a string)."""
        if (text is None) + (blob is None) + (read is None) != 2:
            raise ValueError(f"resource {uri}: give exactly one of text, blob, read")
        self.resources[uri] = Resource(uri, name, text, blob, read, mime_type, title, description, dict(extra))
        self._changed("notifications/resources/list_changed")

    def remove_resource(self, uri: str) -> None:
        if self.resources.pop(uri, None) is not None:
            self._changed("notifications/resources/list_changed")

    def resource_template(self, uri_template: str, name: str, *, read: Callable[..., Any], mime_type: str | None = None, title: str | None = None, description: str | None = None, complete: Mapping[str, Callable[..., Any]] | None = None) -> None:
        """Registers a resource template: ``read(uri, variables, ctx)`` for URIs it matches;
        ``complete[variable](value, context)`` suggests values for ``completion/complete``."""
        self.templates[uri_template] = ResourceTemplate(uri_template, name, read, mime_type, title, description, dict(complete or {}), UriTemplate(uri_template))
        self._changed("notifications/resources/list_changed")

    def prompt(self, name: str, *, get: Callable[..., Any], description: str | None = None, title: str | None = None, arguments: Sequence[PromptArgument | Mapping[str, Any]] = ()) -> None:
        """Registers a prompt: ``get(arguments, ctx)`` returns its messages."""
        args = [a if isinstance(a, PromptArgument) else PromptArgument(**dict(a)) for a in arguments]
        self.prompts[name] = Prompt(name, get, description, title, args)
        self._changed("notifications/prompts/list_changed")

    def remove_prompt(self, name: str) -> None:
        if self.prompts.pop(name, None) is not None:
            self._changed("notifications/prompts/list_changed")

    async def resource_updated(self, uri: str) -> None:
        """``notifications/resources/updated`` to the sessions subscribed to ``uri``."""
        for s in list(self._sessions):
            s.notify_changed("notifications/resources/updated", {"uri": uri})

    def capabilities(self) -> dict[str, Any]:
        """The ``ServerCapabilities`` of what is registered (list changes, subscriptions, completions, logging)."""
        caps: dict[str, Any] = {}
        if self.tools:
            caps["tools"] = {"listChanged": True}
        if self.resources or self.templates:
            caps["resources"] = {"subscribe": True, "listChanged": True}
        if self.prompts:
            caps["prompts"] = {"listChanged": True}
        if any(t.complete for t in self.templates.values()) or any(a.complete for p in self.prompts.values() for a in p.arguments):
            caps["completions"] = {}
        if self.logging:
            caps["logging"] = {}
        if self.tasks is not None:
            caps["tasks"] = self.tasks.capabilities()
        return caps

    def attach(self, session: Any) -> None:
        """Sends this object's list changes to ``session`` (the generated ``Server`` calls it), and
        gives it the tools' ``x-mcp-header`` annotations (the stateless HTTP header checks)."""
        self._sessions.add(session)
        session.tool_header_params = self.tool_headers

    def tool_headers(self, name: str) -> list[ParamHeader]:
        """The ``x-mcp-header`` annotations of a tool (none for an unknown tool)."""
        tool = self.tools.get(name)
        return tool.headers if tool is not None else []

    def _changed(self, method: str) -> None:
        for s in list(self._sessions):
            s.notify_changed(method, None)

    # ---- pagination ----

    def _page(self, items: list[dict[str, Any]], params: Any, key: str) -> dict[str, Any]:
        cursor = getattr(params, "cursor", None) if params is not None else None
        start = 0
        if cursor is not None:
            # longer than any cursor this server issues: refused unread, and not echoed back
            if len(cursor) > MAX_CURSOR_CHARS:
                raise RpcError(INVALID_PARAMS, f"Invalid cursor ({len(cursor)} characters: not one this server issued)")
            try:
                start = int(loads(base64.urlsafe_b64decode(cursor.encode()))["o"])
                if start < 0 or start > len(items):
                    raise ValueError
            except (ValueError, KeyError, TypeError, json.JSONDecodeError, UnicodeDecodeError):
                raise RpcError(INVALID_PARAMS, f"Invalid cursor: {js_json(cursor)}", {"cursor": cursor}) from None
        size = self.page_size or len(items) or 1
        out: dict[str, Any] = {key: items[start : start + size]}
        if start + size < len(items):
            out["nextCursor"] = base64.urlsafe_b64encode(json.dumps({"o": start + size}).encode()).decode()
        return out

    # ---- the handlers (ServerHandlers of every revision) ----

    async def list_tools(self, params: Any, ctx: RequestContext, /) -> Any:
        self._sessions.add(ctx.session)
        return self._page([t.definition() for t in self.tools.values()], params, "tools")

    async def call_tool(self, params: Any, ctx: RequestContext, /) -> Any:
        self._sessions.add(ctx.session)
        name = ctx.params.get("name")
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}", {"name": name})
        args = ctx.params.get("arguments")
        args = {} if args is None else args
        if not isinstance(args, dict):
            raise RpcError(INVALID_PARAMS, "Invalid params: arguments must be an object")
        execution = tool.extra.get("execution")
        support = execution.get("taskSupport") if isinstance(execution, dict) else None
        if self.tasks is not None and "task" in ctx.params and ctx.session is not None and "tasks" in getattr(ctx.session, "capabilities", {}):
            if support not in ("optional", "required"):
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: tool {tool.name} does not run as a task")
            return self.tasks.start(ctx, lambda: self._run_tool(tool, args, ctx))
        if support == "required":
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: tool {tool.name} runs only as a task (params.task)")
        return await self._run_tool(tool, args, ctx)

    async def _run_tool(self, tool: Tool, args: dict[str, Any], ctx: RequestContext) -> Any:
        # the defaults of inputSchema first, as validators with useDefaults fill them: the handler gets them
        if tool._defaults:
            args = with_defaults(tool.input_schema, args)
        problems = describe_errors(tool._input, args)
        if problems:
            return text_result(f"Invalid arguments for tool {tool.name}: " + "; ".join(problems), is_error=True)
        try:
            result = await _call(tool.handler, args, ctx)
        except RpcError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as e:  # a tool execution error: the model sees it
            return text_result(f"Tool {tool.name} failed: {e}", is_error=True)
        if isinstance(result, str):
            return text_result(result)
        try:
            data = dump(result)
        except RecursionError as e:  # a cycle in the result
            raise UnserializableResult(str(e)) from None
        if isinstance(data, dict) and tool._output is not None and data.get("resultType", "complete") == "complete" and not data.get("isError"):
            # a server bug, not something the model can correct: -32603, and logged
            if "structuredContent" not in data:
                log.error("tool %s has an outputSchema and returned no structuredContent", tool.name)
                raise RpcError(INTERNAL_ERROR, f"Internal error: tool {tool.name} has an outputSchema and returned no structuredContent")
            problems = describe_errors(tool._output, data["structuredContent"])
            if problems:
                log.error("tool %s returned structuredContent that fails its outputSchema: %s", tool.name, "; ".join(problems))
                raise RpcError(INTERNAL_ERROR, f"Internal error: tool {tool.name} returned structuredContent that fails its outputSchema: " + "; ".join(problems))
        return data

    async def list_resources(self, params: Any, ctx: RequestContext, /) -> Any:
        self._sessions.add(ctx.session)
        return self._page([r.definition() for r in self.resources.values()], params, "resources")

    async def list_resource_templates(self, params: Any, ctx: RequestContext, /) -> Any:
        self._sessions.add(ctx.session)
        return self._page([t.definition() for t in self.templates.values()], params, "resourceTemplates")

    async def read_resource(self, params: Any, ctx: RequestContext, /) -> Any:
        self._sessions.add(ctx.session)
        uri = ctx.params.get("uri")
        if not isinstance(uri, str):
            raise RpcError(INVALID_PARAMS, "Invalid params: uri must be a string")
        r = self.resources.get(uri)
        if r is not None:
            if r.read is not None:
                contents = await _call(r.read, uri, ctx)
            else:
                item: dict[str, Any] = {"uri": uri}
                if r.mime_type:
                    item["mimeType"] = r.mime_type
                item["text" if r.text is not None else "blob"] = r.text if r.text is not None else r.blob
                contents = [item]
            return self._contents(uri, contents, r.mime_type)
        for t in self.templates.values():
            assert t.matcher is not None
            variables = t.matcher.match(uri)
            if variables is not None:
                return self._contents(uri, await _call(t.read, uri, variables, ctx), t.mime_type)
        raise _resource_not_found(uri, ctx)

    @staticmethod
    def _contents(uri: str, contents: Any, mime_type: str | None) -> Any:
        if isinstance(contents, str):
            item: dict[str, Any] = {"uri": uri, "text": contents}
            if mime_type:
                item["mimeType"] = mime_type
            return {"contents": [item]}
        data = dump(contents)
        if isinstance(data, list):
            return {"contents": data}
        return data

    async def subscribe(self, params: Any, ctx: RequestContext, /) -> Any:
        self._sessions.add(ctx.session)
        uri = ctx.params.get("uri")
        # a URI no resource or template serves is refused, as resources/read refuses it (server/resources "Error Handling")
        if isinstance(uri, str) and uri not in self.resources and all(t.matcher is None or t.matcher.match(uri) is None for t in self.templates.values()):
            raise RpcError(RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})
        if isinstance(uri, str) and ctx.session is not None:
            ctx.session.resource_subscriptions.add(uri)
        return {}

    async def unsubscribe(self, params: Any, ctx: RequestContext, /) -> Any:
        uri = ctx.params.get("uri")
        if isinstance(uri, str) and ctx.session is not None:
            ctx.session.resource_subscriptions.discard(uri)
        return {}

    async def list_prompts(self, params: Any, ctx: RequestContext, /) -> Any:
        self._sessions.add(ctx.session)
        return self._page([p.definition() for p in self.prompts.values()], params, "prompts")

    async def get_prompt(self, params: Any, ctx: RequestContext, /) -> Any:
        self._sessions.add(ctx.session)
        name = ctx.params.get("name")
        prompt = self.prompts.get(name) if isinstance(name, str) else None
        if prompt is None:
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {name}", {"name": name})
        args = ctx.params.get("arguments") or {}
        missing = [a.name for a in prompt.arguments if a.required and a.name not in args]
        if missing:
            raise RpcError(INVALID_PARAMS, f"Missing required argument{'s' if len(missing) > 1 else ''} of prompt {name}: {', '.join(missing)}", {"missing": missing})
        result = await _call(prompt.get, args, ctx)
        data = dump(result)
        if isinstance(data, list):
            out: dict[str, Any] = {"messages": data}
            if prompt.description:
                out["description"] = prompt.description
            return out
        return data

    async def complete(self, params: Any, ctx: RequestContext, /) -> Any:
        ref = ctx.params.get("ref") or {}
        argument = ctx.params.get("argument") or {}
        context = (ctx.params.get("context") or {}).get("arguments") or {}
        arg_name, value = argument.get("name"), argument.get("value", "")
        fn: Callable[..., Any] | None = None
        if ref.get("type") == "ref/prompt":
            prompt = self.prompts.get(str(ref.get("name")))
            if prompt is None:
                raise RpcError(INVALID_PARAMS, f"Unknown prompt: {ref.get('name')}")
            fn = next((a.complete for a in prompt.arguments if a.name == arg_name), None)
        elif ref.get("type") == "ref/resource":
            uri = str(ref.get("uri"))
            template = self.templates.get(uri)
            # a URI that is neither a template nor a resource: "Resource not found", as resources/read
            if template is None and uri not in self.resources:
                raise _resource_not_found(uri, ctx)
            fn = template.complete.get(arg_name) if template is not None and isinstance(arg_name, str) else None
        values = list(await _call(fn, value, context)) if fn is not None else []
        return {"completion": {"values": values[:100], "total": len(values), "hasMore": len(values) > 100}}

    # tasks (2025-11-25): answered by the task store, when there is one
    def _store(self, method: str) -> TaskStore:
        if self.tasks is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return self.tasks

    async def get_task(self, params: Any, ctx: RequestContext, /) -> Any:
        return await self._store("tasks/get").get_task(params, ctx)

    async def get_task_payload(self, params: Any, ctx: RequestContext, /) -> Any:
        return await self._store("tasks/result").get_task_payload(params, ctx)

    async def list_tasks(self, params: Any, ctx: RequestContext, /) -> Any:
        return await self._store("tasks/list").list_tasks(params, ctx)

    async def cancel_task(self, params: Any, ctx: RequestContext, /) -> Any:
        return await self._store("tasks/cancel").cancel_task(params, ctx)


def log_level_of(ctx: RequestContext) -> str | None:
    """The log level a stateless request asked for in its ``_meta`` (None: no log messages)."""
    v = ctx.meta.get(LOG_LEVEL_META)
    return v if isinstance(v, str) else None


ToolFunction = Callable[[dict[str, Any], RequestContext], Awaitable[Any] | Any]


def _resource_not_found(uri: str, ctx: RequestContext) -> RpcError:
    """The "Resource not found" refusal of ``uri`` (server/resources, Error Handling): -32002 with
    ``data {uri}``; -32602 in a stateless revision, whose table has no -32002."""
    table = getattr(ctx.session, "active", None)
    stateless = getattr(table, "lifecycle", "handshake") == "stateless"
    return RpcError(INVALID_PARAMS if stateless else RESOURCE_NOT_FOUND, "Resource not found", {"uri": uri})
