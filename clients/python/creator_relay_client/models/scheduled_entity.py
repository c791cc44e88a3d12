from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ScheduledEntity")


@_attrs_define
class ScheduledEntity:
    """
    Attributes:
        response_type (str):
        id (int):
        text (str):
        is_from_queue (bool):
        queue_id (int):
    """

    response_type: str
    id: int
    text: str
    is_from_queue: bool
    queue_id: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        response_type = self.response_type

        id = self.id

        text = self.text

        is_from_queue = self.is_from_queue

        queue_id = self.queue_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "responseType": response_type,
                "id": id,
                "text": text,
                "isFromQueue": is_from_queue,
                "queueId": queue_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        response_type = d.pop("responseType")

        id = d.pop("id")

        text = d.pop("text")

        is_from_queue = d.pop("isFromQueue")

        queue_id = d.pop("queueId")

        scheduled_entity = cls(
            response_type=response_type,
            id=id,
            text=text,
            is_from_queue=is_from_queue,
            queue_id=queue_id,
        )

        scheduled_entity.additional_properties = d
        return scheduled_entity

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
