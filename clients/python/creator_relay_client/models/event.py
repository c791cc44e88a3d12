from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.event_data import EventData


T = TypeVar("T", bound="Event")


@_attrs_define
class Event:
    """
    Attributes:
        id (str):
        type_ (str):
        organization_id (int):
        account_id (int | None):
        occurred_at (str): ISO 8601 timestamp with UTC offset.
        cursor (str):
        data (EventData):
    """

    id: str
    type_: str
    organization_id: int
    account_id: int | None
    occurred_at: str
    cursor: str
    data: EventData
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        organization_id = self.organization_id

        account_id: int | None
        account_id = self.account_id

        occurred_at = self.occurred_at

        cursor = self.cursor

        data = self.data.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "organization_id": organization_id,
                "account_id": account_id,
                "occurred_at": occurred_at,
                "cursor": cursor,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.event_data import EventData  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        organization_id = d.pop("organization_id")

        def _parse_account_id(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        account_id = _parse_account_id(d.pop("account_id"))

        occurred_at = d.pop("occurred_at")

        cursor = d.pop("cursor")

        data = EventData.from_dict(d.pop("data"))

        event = cls(
            id=id,
            type_=type_,
            organization_id=organization_id,
            account_id=account_id,
            occurred_at=occurred_at,
            cursor=cursor,
            data=data,
        )

        event.additional_properties = d
        return event

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
