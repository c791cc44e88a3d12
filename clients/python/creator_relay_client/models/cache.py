from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.cache_source import CacheSource

T = TypeVar("T", bound="Cache")


@_attrs_define
class Cache:
    """
    Attributes:
        source (CacheSource):
        synced_at (None | str):
    """

    source: CacheSource
    synced_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        source = self.source.value

        synced_at: None | str
        synced_at = self.synced_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "source": source,
                "synced_at": synced_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        source = CacheSource(d.pop("source"))

        def _parse_synced_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        synced_at = _parse_synced_at(d.pop("synced_at"))

        cache = cls(
            source=source,
            synced_at=synced_at,
        )

        cache.additional_properties = d
        return cache

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
