"""Exhaustive `match` over the tagged unions of a binding, checked statically by mypy.

The test writes a copy with `mcp_types_PACKAGE` replaced by the package of a revision and runs
`mypy --strict --python-version 3.11` on it. Every `match` is written here against the schema's
variants and ends in `case _: assert_never(x)`: a variant the binding declares and this file
does not handle leaves `x` with that type at `assert_never`, and mypy refuses the call (`Argument
1 to "assert_never" has incompatible type "VideoContent"; expected "NoReturn"`). The run-time
counterpart, which also covers `python -O`, is match_check.py.
"""
from typing import assert_never

import mcp_types_PACKAGE as t


def content_block(block: t.ContentBlock) -> str:
    match block:
        case t.TextContent():
            return block.text
        case t.ImageContent():
            return block.mime_type
        case t.AudioContent():
            return block.mime_type
        case t.ResourceLink():
            return block.uri
        case t.EmbeddedResource():
            return "resource"
        case _:
            assert_never(block)


def sampling_block(block: t.SamplingMessageContentBlock) -> str:
    match block:
        case t.TextContent():
            return block.text
        case t.ImageContent():
            return block.data
        case t.AudioContent():
            return block.data
        case t.ToolUseContent():
            return block.name
        case t.ToolResultContent():
            return block.tool_use_id
        case _:
            assert_never(block)


def completion_ref(ref: t.CompleteRequestParamsRef) -> str:
    match ref:
        case t.PromptReference():
            return ref.name
        case t.ResourceTemplateReference():
            return ref.uri
        case _:
            assert_never(ref)


def message(msg: t.JSONRPCMessage) -> str:
    match msg:
        case t.JSONRPCRequest():
            return msg.method
        case t.JSONRPCNotification():
            return msg.method
        case t.JSONRPCResultResponse():
            return "result"
        case t.JSONRPCErrorResponse():
            return "error"
        case _:
            assert_never(msg)


def response(msg: t.JSONRPCResponse) -> str:
    match msg:
        case t.JSONRPCResultResponse():
            return "result"
        case t.JSONRPCErrorResponse():
            return "error"
        case _:
            assert_never(msg)


def content_tag(block: t.ContentBlock) -> str:
    """The discriminant itself: a `Literal` union, matched value by value."""
    tag = block.type
    match tag:
        case "text" | "image" | "audio" | "resource_link" | "resource":
            return tag
        case _:
            assert_never(tag)


def decoded(value: object) -> str:
    """A decoder's result has its declared type: the blocks of a result match without a cast."""
    result = t.CallToolResult.from_json(value)
    return "".join(content_block(block) for block in result.content) + message(t.JSONRPCRequest.from_json(value))
