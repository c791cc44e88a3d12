from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post import Post
    from ..models.post_counters import PostCounters


T = TypeVar("T", bound="PostsPage")


@_attrs_define
class PostsPage:
    """
    Attributes:
        list_ (list[Post]):
        has_more (bool):
        head_marker (None | str): A number written as a string.
        tail_marker (None | str): A number written as a string.
        counters (None | PostCounters | Unset):
    """

    list_: list[Post]
    has_more: bool
    head_marker: None | str
    tail_marker: None | str
    counters: None | PostCounters | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.post_counters import PostCounters  # noqa: PLC0415

        list_ = []
        for list_item_data in self.list_:
            list_item = list_item_data.to_dict()
            list_.append(list_item)

        has_more = self.has_more

        head_marker: None | str
        head_marker = self.head_marker

        tail_marker: None | str
        tail_marker = self.tail_marker

        counters: dict[str, Any] | None | Unset
        if isinstance(self.counters, Unset):
            counters = UNSET
        elif isinstance(self.counters, PostCounters):
            counters = self.counters.to_dict()
        else:
            counters = self.counters

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "list": list_,
                "hasMore": has_more,
                "headMarker": head_marker,
                "tailMarker": tail_marker,
            }
        )
        if counters is not UNSET:
            field_dict["counters"] = counters

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.post import Post  # noqa: PLC0415
        from ..models.post_counters import PostCounters  # noqa: PLC0415

        d = dict(src_dict)
        list_ = []
        _list_ = d.pop("list")
        for list_item_data in _list_:
            list_item = Post.from_dict(list_item_data)

            list_.append(list_item)

        has_more = d.pop("hasMore")

        def _parse_head_marker(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        head_marker = _parse_head_marker(d.pop("headMarker"))

        def _parse_tail_marker(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        tail_marker = _parse_tail_marker(d.pop("tailMarker"))

        def _parse_counters(data: object) -> None | PostCounters | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                counters_type_0 = PostCounters.from_dict(data)

                return counters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PostCounters | Unset, data)

        counters = _parse_counters(d.pop("counters", UNSET))

        posts_page = cls(
            list_=list_,
            has_more=has_more,
            head_marker=head_marker,
            tail_marker=tail_marker,
            counters=counters,
        )

        posts_page.additional_properties = d
        return posts_page

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
