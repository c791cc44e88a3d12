from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.earnings_row import EarningsRow


T = TypeVar("T", bound="EarningsPage")


@_attrs_define
class EarningsPage:
    """
    Attributes:
        list_ (list[EarningsRow]):
        marker (int | None): Unix seconds.
        has_more (bool):
        next_marker (int | None): Unix seconds.
        next_marker_id (None | str | Unset):
    """

    list_: list[EarningsRow]
    marker: int | None
    has_more: bool
    next_marker: int | None
    next_marker_id: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        list_ = []
        for list_item_data in self.list_:
            list_item = list_item_data.to_dict()
            list_.append(list_item)

        marker: int | None
        marker = self.marker

        has_more = self.has_more

        next_marker: int | None
        next_marker = self.next_marker

        next_marker_id: None | str | Unset
        if isinstance(self.next_marker_id, Unset):
            next_marker_id = UNSET
        else:
            next_marker_id = self.next_marker_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "list": list_,
                "marker": marker,
                "hasMore": has_more,
                "nextMarker": next_marker,
            }
        )
        if next_marker_id is not UNSET:
            field_dict["nextMarkerId"] = next_marker_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.earnings_row import EarningsRow  # noqa: PLC0415

        d = dict(src_dict)
        list_ = []
        _list_ = d.pop("list")
        for list_item_data in _list_:
            list_item = EarningsRow.from_dict(list_item_data)

            list_.append(list_item)

        def _parse_marker(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        marker = _parse_marker(d.pop("marker"))

        has_more = d.pop("hasMore")

        def _parse_next_marker(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        next_marker = _parse_next_marker(d.pop("nextMarker"))

        def _parse_next_marker_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_marker_id = _parse_next_marker_id(d.pop("nextMarkerId", UNSET))

        earnings_page = cls(
            list_=list_,
            marker=marker,
            has_more=has_more,
            next_marker=next_marker,
            next_marker_id=next_marker_id,
        )

        earnings_page.additional_properties = d
        return earnings_page

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
