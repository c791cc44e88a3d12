from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.user_ref import UserRef


T = TypeVar("T", bound="LastMessage")


@_attrs_define
class LastMessage:
    """
    Attributes:
        id (int):
        text (str):
        is_free (bool):
        created_at (str): ISO 8601 timestamp with UTC offset.
        media_count (int):
        is_tip (bool):
        is_opened (bool):
        giphy_id (None | str):
        locked_text (bool):
        from_user (None | Unset | UserRef):
    """

    id: int
    text: str
    is_free: bool
    created_at: str
    media_count: int
    is_tip: bool
    is_opened: bool
    giphy_id: None | str
    locked_text: bool
    from_user: None | Unset | UserRef = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.user_ref import UserRef  # noqa: PLC0415

        id = self.id

        text = self.text

        is_free = self.is_free

        created_at = self.created_at

        media_count = self.media_count

        is_tip = self.is_tip

        is_opened = self.is_opened

        giphy_id: None | str
        giphy_id = self.giphy_id

        locked_text = self.locked_text

        from_user: dict[str, Any] | None | Unset
        if isinstance(self.from_user, Unset):
            from_user = UNSET
        elif isinstance(self.from_user, UserRef):
            from_user = self.from_user.to_dict()
        else:
            from_user = self.from_user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "text": text,
                "isFree": is_free,
                "createdAt": created_at,
                "mediaCount": media_count,
                "isTip": is_tip,
                "isOpened": is_opened,
                "giphyId": giphy_id,
                "lockedText": locked_text,
            }
        )
        if from_user is not UNSET:
            field_dict["fromUser"] = from_user

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.user_ref import UserRef  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        text = d.pop("text")

        is_free = d.pop("isFree")

        created_at = d.pop("createdAt")

        media_count = d.pop("mediaCount")

        is_tip = d.pop("isTip")

        is_opened = d.pop("isOpened")

        def _parse_giphy_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        giphy_id = _parse_giphy_id(d.pop("giphyId"))

        locked_text = d.pop("lockedText")

        def _parse_from_user(data: object) -> None | Unset | UserRef:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                from_user_type_0 = UserRef.from_dict(data)

                return from_user_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UserRef, data)

        from_user = _parse_from_user(d.pop("fromUser", UNSET))

        last_message = cls(
            id=id,
            text=text,
            is_free=is_free,
            created_at=created_at,
            media_count=media_count,
            is_tip=is_tip,
            is_opened=is_opened,
            giphy_id=giphy_id,
            locked_text=locked_text,
            from_user=from_user,
        )

        last_message.additional_properties = d
        return last_message

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
