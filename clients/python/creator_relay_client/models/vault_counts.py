from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.vault_media import VaultMedia


T = TypeVar("T", bound="VaultCounts")


@_attrs_define
class VaultCounts:
    """
    Attributes:
        videos_count (int):
        photos_count (int):
        gifs_count (int):
        audios_count (int):
        medias (list[VaultMedia]):
    """

    videos_count: int
    photos_count: int
    gifs_count: int
    audios_count: int
    medias: list[VaultMedia]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        videos_count = self.videos_count

        photos_count = self.photos_count

        gifs_count = self.gifs_count

        audios_count = self.audios_count

        medias = []
        for medias_item_data in self.medias:
            medias_item = medias_item_data.to_dict()
            medias.append(medias_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "videosCount": videos_count,
                "photosCount": photos_count,
                "gifsCount": gifs_count,
                "audiosCount": audios_count,
                "medias": medias,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.vault_media import VaultMedia  # noqa: PLC0415

        d = dict(src_dict)
        videos_count = d.pop("videosCount")

        photos_count = d.pop("photosCount")

        gifs_count = d.pop("gifsCount")

        audios_count = d.pop("audiosCount")

        medias = []
        _medias = d.pop("medias")
        for medias_item_data in _medias:
            medias_item = VaultMedia.from_dict(medias_item_data)

            medias.append(medias_item)

        vault_counts = cls(
            videos_count=videos_count,
            photos_count=photos_count,
            gifs_count=gifs_count,
            audios_count=audios_count,
            medias=medias,
        )

        vault_counts.additional_properties = d
        return vault_counts

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
