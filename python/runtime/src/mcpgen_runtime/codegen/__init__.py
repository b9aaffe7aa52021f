"""The contract with generated code (``codegen.v1``)."""
