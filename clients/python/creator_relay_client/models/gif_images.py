from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.gif_image import GifImage


T = TypeVar("T", bound="GifImages")


@_attrs_define
class GifImages:
    """
    Attributes:
        fixed_height (GifImage):
        fixed_width (GifImage):
        original (GifImage):
        original_mp4 (GifImage):
        preview_gif (GifImage):
    """

    fixed_height: GifImage
    fixed_width: GifImage
    original: GifImage
    original_mp4: GifImage
    preview_gif: GifImage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fixed_height = self.fixed_height.to_dict()

        fixed_width = self.fixed_width.to_dict()

        original = self.original.to_dict()

        original_mp4 = self.original_mp4.to_dict()

        preview_gif = self.preview_gif.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fixed_height": fixed_height,
                "fixed_width": fixed_width,
                "original": original,
                "original_mp4": original_mp4,
                "preview_gif": preview_gif,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.gif_image import GifImage  # noqa: PLC0415

        d = dict(src_dict)
        fixed_height = GifImage.from_dict(d.pop("fixed_height"))

        fixed_width = GifImage.from_dict(d.pop("fixed_width"))

        original = GifImage.from_dict(d.pop("original"))

        original_mp4 = GifImage.from_dict(d.pop("original_mp4"))

        preview_gif = GifImage.from_dict(d.pop("preview_gif"))

        gif_images = cls(
            fixed_height=fixed_height,
            fixed_width=fixed_width,
            original=original,
            original_mp4=original_mp4,
            preview_gif=preview_gif,
        )

        gif_images.additional_properties = d
        return gif_images

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
