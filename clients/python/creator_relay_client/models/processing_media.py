from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.media_files import MediaFiles


T = TypeVar("T", bound="ProcessingMedia")


@_attrs_define
class ProcessingMedia:
    """
    Attributes:
        id (int):
        type_ (str):
        created_at (str): ISO 8601 timestamp with UTC offset.
        is_ready (bool):
        can_view (bool):
        has_error (bool):
        files (MediaFiles):
        duration (int):
    """

    id: int
    type_: str
    created_at: str
    is_ready: bool
    can_view: bool
    has_error: bool
    files: MediaFiles
    duration: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        created_at = self.created_at

        is_ready = self.is_ready

        can_view = self.can_view

        has_error = self.has_error

        files = self.files.to_dict()

        duration = self.duration

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "createdAt": created_at,
                "isReady": is_ready,
                "canView": can_view,
                "hasError": has_error,
                "files": files,
                "duration": duration,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.media_files import MediaFiles  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        created_at = d.pop("createdAt")

        is_ready = d.pop("isReady")

        can_view = d.pop("canView")

        has_error = d.pop("hasError")

        files = MediaFiles.from_dict(d.pop("files"))

        duration = d.pop("duration")

        processing_media = cls(
            id=id,
            type_=type_,
            created_at=created_at,
            is_ready=is_ready,
            can_view=can_view,
            has_error=has_error,
            files=files,
            duration=duration,
        )

        processing_media.additional_properties = d
        return processing_media

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
