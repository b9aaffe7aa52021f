"""``WireModel``: the base of every generated pydantic model.

Wire names are aliases (``validate_by_name`` lets code use the Python names); values are checked
strictly (no string-to-number coercion: JSON Schema does none); constants (``type``, ``method``)
always serialize. :meth:`WireModel.from_wire` reads JSON data by wire names only (a member called
``meta`` on the wire is an unknown member, not ``_meta``); :meth:`WireModel.to_wire` writes it back:
unset members stay absent, an explicit ``None`` stays ``null``, unknown members are kept.
"""

from __future__ import annotations

from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict


class WireModel(BaseModel):
    """Base of the generated models (see the module doc)."""

    model_config = ConfigDict(
        extra="allow",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        strict=True,
        protected_namespaces=(),
    )
    __mcp_constants__: ClassVar[frozenset[str]] = frozenset()

    def model_post_init(self, context: Any, /) -> None:
        if self.__mcp_constants__:
            self.__pydantic_fields_set__.update(self.__mcp_constants__)

    @classmethod
    def from_wire(cls, data: Any) -> Self:
        """The model of JSON data (wire names only); raises ``pydantic.ValidationError``."""
        return cls.model_validate(data, by_alias=True, by_name=False)

    def to_wire(self) -> dict[str, Any]:
        """The JSON data of the model (wire names; unset members absent)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)
