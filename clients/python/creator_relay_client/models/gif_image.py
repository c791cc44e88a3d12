from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="GifImage")


@_attrs_define
class GifImage:
    """
    Attributes:
        width (str): A number written as a string.
        height (str): A number written as a string.
        url (None | str | Unset):
        mp4 (None | str | Unset):
    """

    width: str
    height: str
    url: None | str | Unset = UNSET
    mp4: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        width = self.width

        height = self.height

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        mp4: None | str | Unset
        if isinstance(self.mp4, Unset):
            mp4 = UNSET
        else:
            mp4 = self.mp4

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "width": width,
                "height": height,
            }
        )
        if url is not UNSET:
            field_dict["url"] = url
        if mp4 is not UNSET:
            field_dict["mp4"] = mp4

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        width = d.pop("width")

        height = d.pop("height")

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        def _parse_mp4(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        mp4 = _parse_mp4(d.pop("mp4", UNSET))

        gif_image = cls(
            width=width,
            height=height,
            url=url,
            mp4=mp4,
        )

        gif_image.additional_properties = d
        return gif_image

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
