from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.media import Media
    from ..models.user_ref import UserRef


T = TypeVar("T", bound="Post")


@_attrs_define
class Post:
    """
    Attributes:
        author (UserRef):
        response_type (str):
        id (int):
        posted_at (str): ISO 8601 timestamp with UTC offset.
        posted_at_precise (str): A number written as a string.
        text (str):
        raw_text (str):
        can_delete (bool):
        can_comment (bool):
        can_edit (bool):
        can_toggle_favorite (bool):
        can_view_media (bool):
        is_media_ready (bool):
        media_count (int):
        tips_amount (str):
        media (list[Media]):
    """

    author: UserRef
    response_type: str
    id: int
    posted_at: str
    posted_at_precise: str
    text: str
    raw_text: str
    can_delete: bool
    can_comment: bool
    can_edit: bool
    can_toggle_favorite: bool
    can_view_media: bool
    is_media_ready: bool
    media_count: int
    tips_amount: str
    media: list[Media]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        author = self.author.to_dict()

        response_type = self.response_type

        id = self.id

        posted_at = self.posted_at

        posted_at_precise = self.posted_at_precise

        text = self.text

        raw_text = self.raw_text

        can_delete = self.can_delete

        can_comment = self.can_comment

        can_edit = self.can_edit

        can_toggle_favorite = self.can_toggle_favorite

        can_view_media = self.can_view_media

        is_media_ready = self.is_media_ready

        media_count = self.media_count

        tips_amount = self.tips_amount

        media = []
        for media_item_data in self.media:
            media_item = media_item_data.to_dict()
            media.append(media_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "author": author,
                "responseType": response_type,
                "id": id,
                "postedAt": posted_at,
                "postedAtPrecise": posted_at_precise,
                "text": text,
                "rawText": raw_text,
                "canDelete": can_delete,
                "canComment": can_comment,
                "canEdit": can_edit,
                "canToggleFavorite": can_toggle_favorite,
                "canViewMedia": can_view_media,
                "isMediaReady": is_media_ready,
                "mediaCount": media_count,
                "tipsAmount": tips_amount,
                "media": media,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.media import Media  # noqa: PLC0415
        from ..models.user_ref import UserRef  # noqa: PLC0415

        d = dict(src_dict)
        author = UserRef.from_dict(d.pop("author"))

        response_type = d.pop("responseType")

        id = d.pop("id")

        posted_at = d.pop("postedAt")

        posted_at_precise = d.pop("postedAtPrecise")

        text = d.pop("text")

        raw_text = d.pop("rawText")

        can_delete = d.pop("canDelete")

        can_comment = d.pop("canComment")

        can_edit = d.pop("canEdit")

        can_toggle_favorite = d.pop("canToggleFavorite")

        can_view_media = d.pop("canViewMedia")

        is_media_ready = d.pop("isMediaReady")

        media_count = d.pop("mediaCount")

        tips_amount = d.pop("tipsAmount")

        media = []
        _media = d.pop("media")
        for media_item_data in _media:
            media_item = Media.from_dict(media_item_data)

            media.append(media_item)

        post = cls(
            author=author,
            response_type=response_type,
            id=id,
            posted_at=posted_at,
            posted_at_precise=posted_at_precise,
            text=text,
            raw_text=raw_text,
            can_delete=can_delete,
            can_comment=can_comment,
            can_edit=can_edit,
            can_toggle_favorite=can_toggle_favorite,
            can_view_media=can_view_media,
            is_media_ready=is_media_ready,
            media_count=media_count,
            tips_amount=tips_amount,
            media=media,
        )

        post.additional_properties = d
        return post

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
