"""The Python reference server (the conformance fixtures) and the Python conformance client."""

from .server import add_session_fixtures, add_stateless_fixtures, make_server, reference_features, revision_module

__all__ = ["add_session_fixtures", "add_stateless_fixtures", "make_server", "reference_features", "revision_module"]
