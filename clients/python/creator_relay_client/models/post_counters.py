from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PostCounters")


@_attrs_define
class PostCounters:
    """
    Attributes:
        audios_count (int):
        photos_count (int):
        videos_count (int):
        medias_count (int):
        posts_count (int):
        streams_count (int | None):
        archived_posts_count (int):
        private_archived_posts_count (int):
    """

    audios_count: int
    photos_count: int
    videos_count: int
    medias_count: int
    posts_count: int
    streams_count: int | None
    archived_posts_count: int
    private_archived_posts_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        audios_count = self.audios_count

        photos_count = self.photos_count

        videos_count = self.videos_count

        medias_count = self.medias_count

        posts_count = self.posts_count

        streams_count: int | None
        streams_count = self.streams_count

        archived_posts_count = self.archived_posts_count

        private_archived_posts_count = self.private_archived_posts_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "audiosCount": audios_count,
                "photosCount": photos_count,
                "videosCount": videos_count,
                "mediasCount": medias_count,
                "postsCount": posts_count,
                "streamsCount": streams_count,
                "archivedPostsCount": archived_posts_count,
                "privateArchivedPostsCount": private_archived_posts_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        audios_count = d.pop("audiosCount")

        photos_count = d.pop("photosCount")

        videos_count = d.pop("videosCount")

        medias_count = d.pop("mediasCount")

        posts_count = d.pop("postsCount")

        def _parse_streams_count(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        streams_count = _parse_streams_count(d.pop("streamsCount"))

        archived_posts_count = d.pop("archivedPostsCount")

        private_archived_posts_count = d.pop("privateArchivedPostsCount")

        post_counters = cls(
            audios_count=audios_count,
            photos_count=photos_count,
            videos_count=videos_count,
            medias_count=medias_count,
            posts_count=posts_count,
            streams_count=streams_count,
            archived_posts_count=archived_posts_count,
            private_archived_posts_count=private_archived_posts_count,
        )

        post_counters.additional_properties = d
        return post_counters

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
