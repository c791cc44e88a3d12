from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.current_total import CurrentTotal
    from ..models.top_countries import TopCountries
    from ..models.top_duration_users import TopDurationUsers
    from ..models.visitors_chart import VisitorsChart


T = TypeVar("T", bound="ProfileVisitors")


@_attrs_define
class ProfileVisitors:
    """
    Attributes:
        is_available (bool):
        has_stats (bool):
        top_countries (TopCountries):
        top_duration_users (TopDurationUsers):
        chart (VisitorsChart):
        total (CurrentTotal):
    """

    is_available: bool
    has_stats: bool
    top_countries: TopCountries
    top_duration_users: TopDurationUsers
    chart: VisitorsChart
    total: CurrentTotal
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        is_available = self.is_available

        has_stats = self.has_stats

        top_countries = self.top_countries.to_dict()

        top_duration_users = self.top_duration_users.to_dict()

        chart = self.chart.to_dict()

        total = self.total.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "isAvailable": is_available,
                "hasStats": has_stats,
                "topCountries": top_countries,
                "topDurationUsers": top_duration_users,
                "chart": chart,
                "total": total,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.current_total import CurrentTotal  # noqa: PLC0415
        from ..models.top_countries import TopCountries  # noqa: PLC0415
        from ..models.top_duration_users import TopDurationUsers  # noqa: PLC0415
        from ..models.visitors_chart import VisitorsChart  # noqa: PLC0415

        d = dict(src_dict)
        is_available = d.pop("isAvailable")

        has_stats = d.pop("hasStats")

        top_countries = TopCountries.from_dict(d.pop("topCountries"))

        top_duration_users = TopDurationUsers.from_dict(d.pop("topDurationUsers"))

        chart = VisitorsChart.from_dict(d.pop("chart"))

        total = CurrentTotal.from_dict(d.pop("total"))

        profile_visitors = cls(
            is_available=is_available,
            has_stats=has_stats,
            top_countries=top_countries,
            top_duration_users=top_duration_users,
            chart=chart,
            total=total,
        )

        profile_visitors.additional_properties = d
        return profile_visitors

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
