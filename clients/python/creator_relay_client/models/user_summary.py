from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.user_summary_avatar_thumbs_type_0 import UserSummaryAvatarThumbsType0


T = TypeVar("T", bound="UserSummary")


@_attrs_define
class UserSummary:
    """
    Attributes:
        id (int):
        name (str):
        username (str):
        display_name (None | str | Unset):
        view (None | str | Unset):
        is_verified (bool | None | Unset):
        is_deleted (bool | None | Unset):
        is_active (bool | None | Unset):
        avatar (None | str | Unset):
        avatar_thumbs (None | Unset | UserSummaryAvatarThumbsType0):
    """

    id: int
    name: str
    username: str
    display_name: None | str | Unset = UNSET
    view: None | str | Unset = UNSET
    is_verified: bool | None | Unset = UNSET
    is_deleted: bool | None | Unset = UNSET
    is_active: bool | None | Unset = UNSET
    avatar: None | str | Unset = UNSET
    avatar_thumbs: None | Unset | UserSummaryAvatarThumbsType0 = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.user_summary_avatar_thumbs_type_0 import UserSummaryAvatarThumbsType0  # noqa: PLC0415

        id = self.id

        name = self.name

        username = self.username

        display_name: None | str | Unset
        if isinstance(self.display_name, Unset):
            display_name = UNSET
        else:
            display_name = self.display_name

        view: None | str | Unset
        if isinstance(self.view, Unset):
            view = UNSET
        else:
            view = self.view

        is_verified: bool | None | Unset
        if isinstance(self.is_verified, Unset):
            is_verified = UNSET
        else:
            is_verified = self.is_verified

        is_deleted: bool | None | Unset
        if isinstance(self.is_deleted, Unset):
            is_deleted = UNSET
        else:
            is_deleted = self.is_deleted

        is_active: bool | None | Unset
        if isinstance(self.is_active, Unset):
            is_active = UNSET
        else:
            is_active = self.is_active

        avatar: None | str | Unset
        if isinstance(self.avatar, Unset):
            avatar = UNSET
        else:
            avatar = self.avatar

        avatar_thumbs: dict[str, Any] | None | Unset
        if isinstance(self.avatar_thumbs, Unset):
            avatar_thumbs = UNSET
        elif isinstance(self.avatar_thumbs, UserSummaryAvatarThumbsType0):
            avatar_thumbs = self.avatar_thumbs.to_dict()
        else:
            avatar_thumbs = self.avatar_thumbs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "username": username,
            }
        )
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if view is not UNSET:
            field_dict["view"] = view
        if is_verified is not UNSET:
            field_dict["isVerified"] = is_verified
        if is_deleted is not UNSET:
            field_dict["isDeleted"] = is_deleted
        if is_active is not UNSET:
            field_dict["isActive"] = is_active
        if avatar is not UNSET:
            field_dict["avatar"] = avatar
        if avatar_thumbs is not UNSET:
            field_dict["avatarThumbs"] = avatar_thumbs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.user_summary_avatar_thumbs_type_0 import UserSummaryAvatarThumbsType0  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        username = d.pop("username")

        def _parse_display_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        display_name = _parse_display_name(d.pop("displayName", UNSET))

        def _parse_view(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        view = _parse_view(d.pop("view", UNSET))

        def _parse_is_verified(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_verified = _parse_is_verified(d.pop("isVerified", UNSET))

        def _parse_is_deleted(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_deleted = _parse_is_deleted(d.pop("isDeleted", UNSET))

        def _parse_is_active(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        is_active = _parse_is_active(d.pop("isActive", UNSET))

        def _parse_avatar(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        avatar = _parse_avatar(d.pop("avatar", UNSET))

        def _parse_avatar_thumbs(data: object) -> None | Unset | UserSummaryAvatarThumbsType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                avatar_thumbs_type_0 = UserSummaryAvatarThumbsType0.from_dict(data)

                return avatar_thumbs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UserSummaryAvatarThumbsType0, data)

        avatar_thumbs = _parse_avatar_thumbs(d.pop("avatarThumbs", UNSET))

        user_summary = cls(
            id=id,
            name=name,
            username=username,
            display_name=display_name,
            view=view,
            is_verified=is_verified,
            is_deleted=is_deleted,
            is_active=is_active,
            avatar=avatar,
            avatar_thumbs=avatar_thumbs,
        )

        user_summary.additional_properties = d
        return user_summary

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
