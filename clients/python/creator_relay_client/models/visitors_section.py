from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.change import Change
    from ..models.date_point import DatePoint
    from ..models.subscriptions import Subscriptions


T = TypeVar("T", bound="VisitorsSection")


@_attrs_define
class VisitorsSection:
    """
    Attributes:
        has_statistic (bool):
        count (Change):
        visitors (Change):
        subscriptions (Subscriptions):
        chart_data (list[DatePoint] | None | Unset):
    """

    has_statistic: bool
    count: Change
    visitors: Change
    subscriptions: Subscriptions
    chart_data: list[DatePoint] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_statistic = self.has_statistic

        count = self.count.to_dict()

        visitors = self.visitors.to_dict()

        subscriptions = self.subscriptions.to_dict()

        chart_data: list[dict[str, Any]] | None | Unset
        if isinstance(self.chart_data, Unset):
            chart_data = UNSET
        elif isinstance(self.chart_data, list):
            chart_data = []
            for chart_data_type_0_item_data in self.chart_data:
                chart_data_type_0_item = chart_data_type_0_item_data.to_dict()
                chart_data.append(chart_data_type_0_item)

        else:
            chart_data = self.chart_data

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hasStatistic": has_statistic,
                "count": count,
                "visitors": visitors,
                "subscriptions": subscriptions,
            }
        )
        if chart_data is not UNSET:
            field_dict["chartData"] = chart_data

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.change import Change  # noqa: PLC0415
        from ..models.date_point import DatePoint  # noqa: PLC0415
        from ..models.subscriptions import Subscriptions  # noqa: PLC0415

        d = dict(src_dict)
        has_statistic = d.pop("hasStatistic")

        count = Change.from_dict(d.pop("count"))

        visitors = Change.from_dict(d.pop("visitors"))

        subscriptions = Subscriptions.from_dict(d.pop("subscriptions"))

        def _parse_chart_data(data: object) -> list[DatePoint] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                chart_data_type_0 = []
                _chart_data_type_0 = data
                for chart_data_type_0_item_data in _chart_data_type_0:
                    chart_data_type_0_item = DatePoint.from_dict(chart_data_type_0_item_data)

                    chart_data_type_0.append(chart_data_type_0_item)

                return chart_data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[DatePoint] | None | Unset, data)

        chart_data = _parse_chart_data(d.pop("chartData", UNSET))

        visitors_section = cls(
            has_statistic=has_statistic,
            count=count,
            visitors=visitors,
            subscriptions=subscriptions,
            chart_data=chart_data,
        )

        visitors_section.additional_properties = d
        return visitors_section

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
