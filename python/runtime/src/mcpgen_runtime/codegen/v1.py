"""The one module generated packages import: exactly what generated code may use of the runtime.

It only grows: a name listed here stays, with its meaning, for every package generated against
``codegen.v1``.
"""

from ..client import ClientSession, NotificationHandler
from ..engine import ProgressCallback, RequestContext
from ..jsonrpc import METHOD_NOT_FOUND, RpcError
from ..models import WireModel
from ..protocol import NotificationSpec, ProtocolTable, RequestSpec
from ..server import ServerSession

__all__ = [
    "METHOD_NOT_FOUND",
    "ClientSession",
    "NotificationHandler",
    "NotificationSpec",
    "ProgressCallback",
    "ProtocolTable",
    "RequestContext",
    "RequestSpec",
    "RpcError",
    "ServerSession",
    "WireModel",
]
