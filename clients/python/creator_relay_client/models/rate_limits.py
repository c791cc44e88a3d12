from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RateLimits")


@_attrs_define
class RateLimits:
    """
    Attributes:
        limit_minute (int):
        remaining_minute (int):
        limit_day (int):
        remaining_day (int):
    """

    limit_minute: int
    remaining_minute: int
    limit_day: int
    remaining_day: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        limit_minute = self.limit_minute

        remaining_minute = self.remaining_minute

        limit_day = self.limit_day

        remaining_day = self.remaining_day

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "limit_minute": limit_minute,
                "remaining_minute": remaining_minute,
                "limit_day": limit_day,
                "remaining_day": remaining_day,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        limit_minute = d.pop("limit_minute")

        remaining_minute = d.pop("remaining_minute")

        limit_day = d.pop("limit_day")

        remaining_day = d.pop("remaining_day")

        rate_limits = cls(
            limit_minute=limit_minute,
            remaining_minute=remaining_minute,
            limit_day=limit_day,
            remaining_day=remaining_day,
        )

        rate_limits.additional_properties = d
        return rate_limits

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
