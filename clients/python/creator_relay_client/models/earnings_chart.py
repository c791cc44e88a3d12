from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.date_point import DatePoint


T = TypeVar("T", bound="EarningsChart")


@_attrs_define
class EarningsChart:
    """
    Attributes:
        chart_amount (list[DatePoint]):
        chart_count (list[DatePoint]):
        total (float):
        gross (float):
        delta (float):
    """

    chart_amount: list[DatePoint]
    chart_count: list[DatePoint]
    total: float
    gross: float
    delta: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        chart_amount = []
        for chart_amount_item_data in self.chart_amount:
            chart_amount_item = chart_amount_item_data.to_dict()
            chart_amount.append(chart_amount_item)

        chart_count = []
        for chart_count_item_data in self.chart_count:
            chart_count_item = chart_count_item_data.to_dict()
            chart_count.append(chart_count_item)

        total = self.total

        gross = self.gross

        delta = self.delta

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chartAmount": chart_amount,
                "chartCount": chart_count,
                "total": total,
                "gross": gross,
                "delta": delta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.date_point import DatePoint  # noqa: PLC0415

        d = dict(src_dict)
        chart_amount = []
        _chart_amount = d.pop("chartAmount")
        for chart_amount_item_data in _chart_amount:
            chart_amount_item = DatePoint.from_dict(chart_amount_item_data)

            chart_amount.append(chart_amount_item)

        chart_count = []
        _chart_count = d.pop("chartCount")
        for chart_count_item_data in _chart_count:
            chart_count_item = DatePoint.from_dict(chart_count_item_data)

            chart_count.append(chart_count_item)

        total = d.pop("total")

        gross = d.pop("gross")

        delta = d.pop("delta")

        earnings_chart = cls(
            chart_amount=chart_amount,
            chart_count=chart_count,
            total=total,
            gross=gross,
            delta=delta,
        )

        earnings_chart.additional_properties = d
        return earnings_chart

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
