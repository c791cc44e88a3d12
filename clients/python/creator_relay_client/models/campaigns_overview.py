from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.campaigns_summary import CampaignsSummary


T = TypeVar("T", bound="CampaignsOverview")


@_attrs_define
class CampaignsOverview:
    """
    Attributes:
        campaigns (CampaignsSummary):
    """

    campaigns: CampaignsSummary
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        campaigns = self.campaigns.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "campaigns": campaigns,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.campaigns_summary import CampaignsSummary  # noqa: PLC0415

        d = dict(src_dict)
        campaigns = CampaignsSummary.from_dict(d.pop("campaigns"))

        campaigns_overview = cls(
            campaigns=campaigns,
        )

        campaigns_overview.additional_properties = d
        return campaigns_overview

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
