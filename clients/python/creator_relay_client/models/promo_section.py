from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.change import Change
    from ..models.date_point import DatePoint
    from ..models.money_change import MoneyChange


T = TypeVar("T", bound="PromoSection")


@_attrs_define
class PromoSection:
    """
    Attributes:
        has_statistic (bool):
        earnings (MoneyChange):
        claims (Change):
        chart_data (list[DatePoint]):
    """

    has_statistic: bool
    earnings: MoneyChange
    claims: Change
    chart_data: list[DatePoint]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_statistic = self.has_statistic

        earnings = self.earnings.to_dict()

        claims = self.claims.to_dict()

        chart_data = []
        for chart_data_item_data in self.chart_data:
            chart_data_item = chart_data_item_data.to_dict()
            chart_data.append(chart_data_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hasStatistic": has_statistic,
                "earnings": earnings,
                "claims": claims,
                "chartData": chart_data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.change import Change  # noqa: PLC0415
        from ..models.date_point import DatePoint  # noqa: PLC0415
        from ..models.money_change import MoneyChange  # noqa: PLC0415

        d = dict(src_dict)
        has_statistic = d.pop("hasStatistic")

        earnings = MoneyChange.from_dict(d.pop("earnings"))

        claims = Change.from_dict(d.pop("claims"))

        chart_data = []
        _chart_data = d.pop("chartData")
        for chart_data_item_data in _chart_data:
            chart_data_item = DatePoint.from_dict(chart_data_item_data)

            chart_data.append(chart_data_item)

        promo_section = cls(
            has_statistic=has_statistic,
            earnings=earnings,
            claims=claims,
            chart_data=chart_data,
        )

        promo_section.additional_properties = d
        return promo_section

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
