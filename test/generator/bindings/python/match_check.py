"""Exhaustive `match` over the tagged unions of a binding, checked with typing.assert_never.

Usage: python3 -O match_check.py <package dir> <module>
Every variant the binding declares (typing.get_args of the union) goes through a `match`
written here against the schema's variants; a variant this file does not handle reaches
`assert_never`, which raises (a raise, not an assert statement, so it holds under -O) and the
script exits 1 naming it. The check runs on an instance of every declared variant; its static
counterpart, checked by mypy, is match_static.py.
"""
import dataclasses
import importlib
import sys
import typing
from typing import assert_never

sys.path.insert(0, sys.argv[1])
t = importlib.import_module(sys.argv[2])


def content_block(block: "t.ContentBlock") -> str:
    match block:
        case t.TextContent():
            return "text"
        case t.ImageContent():
            return "image"
        case t.AudioContent():
            return "audio"
        case t.ResourceLink():
            return "resource_link"
        case t.EmbeddedResource():
            return "resource"
        case _:
            assert_never(block)


def sampling_block(block: "t.SamplingMessageContentBlock") -> str:
    match block:
        case t.TextContent():
            return "text"
        case t.ImageContent():
            return "image"
        case t.AudioContent():
            return "audio"
        case t.ToolUseContent():
            return "tool_use"
        case t.ToolResultContent():
            return "tool_result"
        case _:
            assert_never(block)


def message(msg: "t.JSONRPCMessage") -> str:
    match msg:
        case t.JSONRPCRequest():
            return "request"
        case t.JSONRPCNotification():
            return "notification"
        case t.JSONRPCResultResponse():
            return "result"
        case t.JSONRPCErrorResponse():
            return "error"
        case _:
            assert_never(msg)


def instance(cls):
    """An instance of a variant with every member None (a class pattern only checks the class)."""
    value = cls.__new__(cls)
    for f in dataclasses.fields(cls):
        object.__setattr__(value, f.name, None)
    return value


CHECKS = [
    ("ContentBlock", content_block, t.CONTENT_BLOCK_TAGS),
    ("SamplingMessageContentBlock", sampling_block, t.SAMPLING_MESSAGE_CONTENT_BLOCK_TAGS),
    ("JSONRPCMessage", message, None),
]

failed = False
for name, check, tags in CHECKS:
    for cls in typing.get_args(getattr(t, name)):
        try:
            label = check(instance(cls))
        except AssertionError:
            print(f"{name}: variant {cls.__name__} is not handled", file=sys.stderr)
            failed = True
            continue
        if tags is not None and tags.get(label) is not cls:
            print(f"{name}: {cls.__name__} matched as {label!r}", file=sys.stderr)
            failed = True
    print(f"{name}: {len(typing.get_args(getattr(t, name)))} variants")
sys.exit(1 if failed else 0)
