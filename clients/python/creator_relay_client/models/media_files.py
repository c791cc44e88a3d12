from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.file_url import FileUrl


T = TypeVar("T", bound="MediaFiles")


@_attrs_define
class MediaFiles:
    """
    Attributes:
        full (FileUrl):
        thumb (FileUrl | None | Unset):
        preview (FileUrl | None | Unset):
        square_preview (FileUrl | None | Unset):
    """

    full: FileUrl
    thumb: FileUrl | None | Unset = UNSET
    preview: FileUrl | None | Unset = UNSET
    square_preview: FileUrl | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.file_url import FileUrl  # noqa: PLC0415

        full = self.full.to_dict()

        thumb: dict[str, Any] | None | Unset
        if isinstance(self.thumb, Unset):
            thumb = UNSET
        elif isinstance(self.thumb, FileUrl):
            thumb = self.thumb.to_dict()
        else:
            thumb = self.thumb

        preview: dict[str, Any] | None | Unset
        if isinstance(self.preview, Unset):
            preview = UNSET
        elif isinstance(self.preview, FileUrl):
            preview = self.preview.to_dict()
        else:
            preview = self.preview

        square_preview: dict[str, Any] | None | Unset
        if isinstance(self.square_preview, Unset):
            square_preview = UNSET
        elif isinstance(self.square_preview, FileUrl):
            square_preview = self.square_preview.to_dict()
        else:
            square_preview = self.square_preview

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "full": full,
            }
        )
        if thumb is not UNSET:
            field_dict["thumb"] = thumb
        if preview is not UNSET:
            field_dict["preview"] = preview
        if square_preview is not UNSET:
            field_dict["squarePreview"] = square_preview

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.file_url import FileUrl  # noqa: PLC0415

        d = dict(src_dict)
        full = FileUrl.from_dict(d.pop("full"))

        def _parse_thumb(data: object) -> FileUrl | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                thumb_type_0 = FileUrl.from_dict(data)

                return thumb_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FileUrl | None | Unset, data)

        thumb = _parse_thumb(d.pop("thumb", UNSET))

        def _parse_preview(data: object) -> FileUrl | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                preview_type_0 = FileUrl.from_dict(data)

                return preview_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FileUrl | None | Unset, data)

        preview = _parse_preview(d.pop("preview", UNSET))

        def _parse_square_preview(data: object) -> FileUrl | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                square_preview_type_0 = FileUrl.from_dict(data)

                return square_preview_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FileUrl | None | Unset, data)

        square_preview = _parse_square_preview(d.pop("squarePreview", UNSET))

        media_files = cls(
            full=full,
            thumb=thumb,
            preview=preview,
            square_preview=square_preview,
        )

        media_files.additional_properties = d
        return media_files

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
