from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chargeback import Chargeback


T = TypeVar("T", bound="ChargebacksPage")


@_attrs_define
class ChargebacksPage:
    """
    Attributes:
        list_ (list[Chargeback]):
        marker (int): Unix seconds.
        has_more (bool | None | Unset):
    """

    list_: list[Chargeback]
    marker: int
    has_more: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        list_ = []
        for list_item_data in self.list_:
            list_item = list_item_data.to_dict()
            list_.append(list_item)

        marker = self.marker

        has_more: bool | None | Unset
        if isinstance(self.has_more, Unset):
            has_more = UNSET
        else:
            has_more = self.has_more

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "list": list_,
                "marker": marker,
            }
        )
        if has_more is not UNSET:
            field_dict["hasMore"] = has_more

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chargeback import Chargeback  # noqa: PLC0415

        d = dict(src_dict)
        list_ = []
        _list_ = d.pop("list")
        for list_item_data in _list_:
            list_item = Chargeback.from_dict(list_item_data)

            list_.append(list_item)

        marker = d.pop("marker")

        def _parse_has_more(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        has_more = _parse_has_more(d.pop("hasMore", UNSET))

        chargebacks_page = cls(
            list_=list_,
            marker=marker,
            has_more=has_more,
        )

        chargebacks_page.additional_properties = d
        return chargebacks_page

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
