from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="DirectMessageStats")


@_attrs_define
class DirectMessageStats:
    """
    Attributes:
        id (int):
        date (str): ISO 8601 timestamp with UTC offset.
        text (str):
        sent_count (int):
        viewed_count (int):
        media_count (int):
        is_free (bool):
        is_tip (bool):
    """

    id: int
    date: str
    text: str
    sent_count: int
    viewed_count: int
    media_count: int
    is_free: bool
    is_tip: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        date = self.date

        text = self.text

        sent_count = self.sent_count

        viewed_count = self.viewed_count

        media_count = self.media_count

        is_free = self.is_free

        is_tip = self.is_tip

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "date": date,
                "text": text,
                "sentCount": sent_count,
                "viewedCount": viewed_count,
                "mediaCount": media_count,
                "isFree": is_free,
                "isTip": is_tip,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        date = d.pop("date")

        text = d.pop("text")

        sent_count = d.pop("sentCount")

        viewed_count = d.pop("viewedCount")

        media_count = d.pop("mediaCount")

        is_free = d.pop("isFree")

        is_tip = d.pop("isTip")

        direct_message_stats = cls(
            id=id,
            date=date,
            text=text,
            sent_count=sent_count,
            viewed_count=viewed_count,
            media_count=media_count,
            is_free=is_free,
            is_tip=is_tip,
        )

        direct_message_stats.additional_properties = d
        return direct_message_stats

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
