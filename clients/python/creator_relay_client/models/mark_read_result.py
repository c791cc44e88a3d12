from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.mark_read_result_counters import MarkReadResultCounters


T = TypeVar("T", bound="MarkReadResult")


@_attrs_define
class MarkReadResult:
    """
    Attributes:
        counters (MarkReadResultCounters):
        has_system_notifications (bool):
        success (bool):
    """

    counters: MarkReadResultCounters
    has_system_notifications: bool
    success: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        counters = self.counters.to_dict()

        has_system_notifications = self.has_system_notifications

        success = self.success

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "counters": counters,
                "hasSystemNotifications": has_system_notifications,
                "success": success,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.mark_read_result_counters import MarkReadResultCounters  # noqa: PLC0415

        d = dict(src_dict)
        counters = MarkReadResultCounters.from_dict(d.pop("counters"))

        has_system_notifications = d.pop("hasSystemNotifications")

        success = d.pop("success")

        mark_read_result = cls(
            counters=counters,
            has_system_notifications=has_system_notifications,
            success=success,
        )

        mark_read_result.additional_properties = d
        return mark_read_result

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
