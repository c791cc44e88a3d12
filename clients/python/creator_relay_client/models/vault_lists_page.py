from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.vault_counts import VaultCounts
    from ..models.vault_list import VaultList


T = TypeVar("T", bound="VaultListsPage")


@_attrs_define
class VaultListsPage:
    """
    Attributes:
        list_ (list[VaultList]):
        all_ (VaultCounts):
        has_more (bool):
        can_create_vault_lists (bool):
        order (str):
        sort (str):
    """

    list_: list[VaultList]
    all_: VaultCounts
    has_more: bool
    can_create_vault_lists: bool
    order: str
    sort: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        list_ = []
        for list_item_data in self.list_:
            list_item = list_item_data.to_dict()
            list_.append(list_item)

        all_ = self.all_.to_dict()

        has_more = self.has_more

        can_create_vault_lists = self.can_create_vault_lists

        order = self.order

        sort = self.sort

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "list": list_,
                "all": all_,
                "hasMore": has_more,
                "canCreateVaultLists": can_create_vault_lists,
                "order": order,
                "sort": sort,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.vault_counts import VaultCounts  # noqa: PLC0415
        from ..models.vault_list import VaultList  # noqa: PLC0415

        d = dict(src_dict)
        list_ = []
        _list_ = d.pop("list")
        for list_item_data in _list_:
            list_item = VaultList.from_dict(list_item_data)

            list_.append(list_item)

        all_ = VaultCounts.from_dict(d.pop("all"))

        has_more = d.pop("hasMore")

        can_create_vault_lists = d.pop("canCreateVaultLists")

        order = d.pop("order")

        sort = d.pop("sort")

        vault_lists_page = cls(
            list_=list_,
            all_=all_,
            has_more=has_more,
            can_create_vault_lists=can_create_vault_lists,
            order=order,
            sort=sort,
        )

        vault_lists_page.additional_properties = d
        return vault_lists_page

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
