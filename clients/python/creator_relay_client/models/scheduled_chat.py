from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.scheduled_entity import ScheduledEntity


T = TypeVar("T", bound="ScheduledChat")


@_attrs_define
class ScheduledChat:
    """
    Attributes:
        id (int):
        type_ (str):
        publish_date_time (str): ISO 8601 timestamp with UTC offset.
        created_date_time (str): ISO 8601 timestamp with UTC offset.
        entity (ScheduledEntity):
    """

    id: int
    type_: str
    publish_date_time: str
    created_date_time: str
    entity: ScheduledEntity
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        publish_date_time = self.publish_date_time

        created_date_time = self.created_date_time

        entity = self.entity.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "publishDateTime": publish_date_time,
                "createdDateTime": created_date_time,
                "entity": entity,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.scheduled_entity import ScheduledEntity  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        publish_date_time = d.pop("publishDateTime")

        created_date_time = d.pop("createdDateTime")

        entity = ScheduledEntity.from_dict(d.pop("entity"))

        scheduled_chat = cls(
            id=id,
            type_=type_,
            publish_date_time=publish_date_time,
            created_date_time=created_date_time,
            entity=entity,
        )

        scheduled_chat.additional_properties = d
        return scheduled_chat

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
