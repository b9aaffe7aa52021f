"""mcpgen's Python runtime for the Model Context Protocol: what the generated ``mcp_<rev>``
packages run on. Revision-agnostic: every revision fact comes from a generated ``ProtocolTable``.

Applications use the generated ``Client`` / ``Server`` of their revision, and from here the
transports (``StdioClientTransport``, ``StdioServerTransport``, ``HttpClientTransport``, the ASGI
``McpHttpApp``), ``ServerFeatures`` (tools, resources, prompts, completion) and the errors.

For library authors: the layers are modules: ``jsonrpc``, ``codec``, ``protocol``, ``engine``,
``transport``, ``stdio``, ``stateless``, ``server``, ``client``, ``features``, ``http``;
generated code imports ``mcpgen_runtime.codegen.v1`` only.
"""

from .client import CapabilityError, ClientSession, ServerDescription, Subscription, UnsupportedVersionError
from .engine import Channel, Peer, ProgressCallback, RequestContext
from .jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    ConnectionClosed,
    RequestTimeout,
    RpcError,
)
from .models import WireModel
from .protocol import ProtocolTable
from .server import ServerSession
from .stateless import (
    MaxInputRoundsError,
    RequestStateSealer,
    elicit,
    input_required,
    list_roots,
    read_input,
    require_client_capabilities,
    sample,
)
from .stdio import StdioClientTransport, StdioServerTransport
from .transport import MemoryTransport, Transport, memory_pair

__version__ = "1.0.0rc1"

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "PARSE_ERROR",
    "CapabilityError",
    "Channel",
    "ClientSession",
    "ConnectionClosed",
    "MaxInputRoundsError",
    "MemoryTransport",
    "Peer",
    "ProgressCallback",
    "ProtocolTable",
    "RequestContext",
    "RequestStateSealer",
    "RequestTimeout",
    "RpcError",
    "ServerDescription",
    "ServerSession",
    "StdioClientTransport",
    "StdioServerTransport",
    "Subscription",
    "Transport",
    "UnsupportedVersionError",
    "WireModel",
    "elicit",
    "input_required",
    "list_roots",
    "memory_pair",
    "read_input",
    "require_client_capabilities",
    "sample",
]
