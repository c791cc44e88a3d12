from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LinkSummary")


@_attrs_define
class LinkSummary:
    """
    Attributes:
        clicks_total (int):
        subs_total (int):
        revenue_total (str): A number written as a string.
        spenders_total (int):
        last_scanned_at (None | str):
    """

    clicks_total: int
    subs_total: int
    revenue_total: str
    spenders_total: int
    last_scanned_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        clicks_total = self.clicks_total

        subs_total = self.subs_total

        revenue_total = self.revenue_total

        spenders_total = self.spenders_total

        last_scanned_at: None | str
        last_scanned_at = self.last_scanned_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "clicks_total": clicks_total,
                "subs_total": subs_total,
                "revenue_total": revenue_total,
                "spenders_total": spenders_total,
                "last_scanned_at": last_scanned_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        clicks_total = d.pop("clicks_total")

        subs_total = d.pop("subs_total")

        revenue_total = d.pop("revenue_total")

        spenders_total = d.pop("spenders_total")

        def _parse_last_scanned_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_scanned_at = _parse_last_scanned_at(d.pop("last_scanned_at"))

        link_summary = cls(
            clicks_total=clicks_total,
            subs_total=subs_total,
            revenue_total=revenue_total,
            spenders_total=spenders_total,
            last_scanned_at=last_scanned_at,
        )

        link_summary.additional_properties = d
        return link_summary

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
