from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LinkMetrics")


@_attrs_define
class LinkMetrics:
    """
    Attributes:
        timestamp (str): A calendar day, YYYY-MM-DD.
        clicks (int | None):
        subs (int):
        revenue (str): A number written as a string.
        spenders (int):
    """

    timestamp: str
    clicks: int | None
    subs: int
    revenue: str
    spenders: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        timestamp = self.timestamp

        clicks: int | None
        clicks = self.clicks

        subs = self.subs

        revenue = self.revenue

        spenders = self.spenders

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "timestamp": timestamp,
                "clicks": clicks,
                "subs": subs,
                "revenue": revenue,
                "spenders": spenders,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        timestamp = d.pop("timestamp")

        def _parse_clicks(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        clicks = _parse_clicks(d.pop("clicks"))

        subs = d.pop("subs")

        revenue = d.pop("revenue")

        spenders = d.pop("spenders")

        link_metrics = cls(
            timestamp=timestamp,
            clicks=clicks,
            subs=subs,
            revenue=revenue,
            spenders=spenders,
        )

        link_metrics.additional_properties = d
        return link_metrics

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
