from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.day_count import DayCount


T = TypeVar("T", bound="CampaignsChart")


@_attrs_define
class CampaignsChart:
    """
    Attributes:
        clicks (list[DayCount]):
        claims (list[DayCount]):
    """

    clicks: list[DayCount]
    claims: list[DayCount]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        clicks = []
        for clicks_item_data in self.clicks:
            clicks_item = clicks_item_data.to_dict()
            clicks.append(clicks_item)

        claims = []
        for claims_item_data in self.claims:
            claims_item = claims_item_data.to_dict()
            claims.append(claims_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "clicks": clicks,
                "claims": claims,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.day_count import DayCount  # noqa: PLC0415

        d = dict(src_dict)
        clicks = []
        _clicks = d.pop("clicks")
        for clicks_item_data in _clicks:
            clicks_item = DayCount.from_dict(clicks_item_data)

            clicks.append(clicks_item)

        claims = []
        _claims = d.pop("claims")
        for claims_item_data in _claims:
            claims_item = DayCount.from_dict(claims_item_data)

            claims.append(claims_item)

        campaigns_chart = cls(
            clicks=clicks,
            claims=claims,
        )

        campaigns_chart.additional_properties = d
        return campaigns_chart

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
