from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.gif_images import GifImages


T = TypeVar("T", bound="Gif")


@_attrs_define
class Gif:
    """
    Attributes:
        id (str):
        title (str):
        alt_text (str):
        rating (str):
        is_sticker (int):
        type_ (str):
        url (str):
        embed_url (str):
        images (GifImages):
    """

    id: str
    title: str
    alt_text: str
    rating: str
    is_sticker: int
    type_: str
    url: str
    embed_url: str
    images: GifImages
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        title = self.title

        alt_text = self.alt_text

        rating = self.rating

        is_sticker = self.is_sticker

        type_ = self.type_

        url = self.url

        embed_url = self.embed_url

        images = self.images.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "title": title,
                "alt_text": alt_text,
                "rating": rating,
                "is_sticker": is_sticker,
                "type": type_,
                "url": url,
                "embed_url": embed_url,
                "images": images,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gif_images import GifImages  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        title = d.pop("title")

        alt_text = d.pop("alt_text")

        rating = d.pop("rating")

        is_sticker = d.pop("is_sticker")

        type_ = d.pop("type")

        url = d.pop("url")

        embed_url = d.pop("embed_url")

        images = GifImages.from_dict(d.pop("images"))

        gif = cls(
            id=id,
            title=title,
            alt_text=alt_text,
            rating=rating,
            is_sticker=is_sticker,
            type_=type_,
            url=url,
            embed_url=embed_url,
            images=images,
        )

        gif.additional_properties = d
        return gif

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
