from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.media_files import MediaFiles


T = TypeVar("T", bound="Media")


@_attrs_define
class Media:
    """
    Attributes:
        id (int):
        type_ (str):
        can_view (bool):
        is_ready (bool):
        duration (int):
        files (MediaFiles):
    """

    id: int
    type_: str
    can_view: bool
    is_ready: bool
    duration: int
    files: MediaFiles
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_

        can_view = self.can_view

        is_ready = self.is_ready

        duration = self.duration

        files = self.files.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "canView": can_view,
                "isReady": is_ready,
                "duration": duration,
                "files": files,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.media_files import MediaFiles  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = d.pop("type")

        can_view = d.pop("canView")

        is_ready = d.pop("isReady")

        duration = d.pop("duration")

        files = MediaFiles.from_dict(d.pop("files"))

        media = cls(
            id=id,
            type_=type_,
            can_view=can_view,
            is_ready=is_ready,
            duration=duration,
            files=files,
        )

        media.additional_properties = d
        return media

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
