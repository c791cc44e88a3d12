from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.date_point import DatePoint


T = TypeVar("T", bound="VisitorsChart")


@_attrs_define
class VisitorsChart:
    """
    Attributes:
        visitors (list[DatePoint]):
        duration (list[DatePoint]):
    """

    visitors: list[DatePoint]
    duration: list[DatePoint]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        visitors = []
        for visitors_item_data in self.visitors:
            visitors_item = visitors_item_data.to_dict()
            visitors.append(visitors_item)

        duration = []
        for duration_item_data in self.duration:
            duration_item = duration_item_data.to_dict()
            duration.append(duration_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "visitors": visitors,
                "duration": duration,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.date_point import DatePoint  # noqa: PLC0415

        d = dict(src_dict)
        visitors = []
        _visitors = d.pop("visitors")
        for visitors_item_data in _visitors:
            visitors_item = DatePoint.from_dict(visitors_item_data)

            visitors.append(visitors_item)

        duration = []
        _duration = d.pop("duration")
        for duration_item_data in _duration:
            duration_item = DatePoint.from_dict(duration_item_data)

            duration.append(duration_item)

        visitors_chart = cls(
            visitors=visitors,
            duration=duration,
        )

        visitors_chart.additional_properties = d
        return visitors_chart

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
