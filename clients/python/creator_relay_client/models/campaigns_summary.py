from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.counter import Counter
    from ..models.day_count import DayCount


T = TypeVar("T", bound="CampaignsSummary")


@_attrs_define
class CampaignsSummary:
    """
    Attributes:
        has_statistic (bool):
        count (Counter):
        claims (Counter):
        clicks (Counter):
        chart_data (list[DayCount]):
    """

    has_statistic: bool
    count: Counter
    claims: Counter
    clicks: Counter
    chart_data: list[DayCount]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_statistic = self.has_statistic

        count = self.count.to_dict()

        claims = self.claims.to_dict()

        clicks = self.clicks.to_dict()

        chart_data = []
        for chart_data_item_data in self.chart_data:
            chart_data_item = chart_data_item_data.to_dict()
            chart_data.append(chart_data_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hasStatistic": has_statistic,
                "count": count,
                "claims": claims,
                "clicks": clicks,
                "chartData": chart_data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.counter import Counter  # noqa: PLC0415
        from ..models.day_count import DayCount  # noqa: PLC0415

        d = dict(src_dict)
        has_statistic = d.pop("hasStatistic")

        count = Counter.from_dict(d.pop("count"))

        claims = Counter.from_dict(d.pop("claims"))

        clicks = Counter.from_dict(d.pop("clicks"))

        chart_data = []
        _chart_data = d.pop("chartData")
        for chart_data_item_data in _chart_data:
            chart_data_item = DayCount.from_dict(chart_data_item_data)

            chart_data.append(chart_data_item)

        campaigns_summary = cls(
            has_statistic=has_statistic,
            count=count,
            claims=claims,
            clicks=clicks,
            chart_data=chart_data,
        )

        campaigns_summary.additional_properties = d
        return campaigns_summary

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
