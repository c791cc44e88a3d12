from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.link_metrics import LinkMetrics
    from ..models.link_summary import LinkSummary


T = TypeVar("T", bound="LinkStats")


@_attrs_define
class LinkStats:
    """
    Attributes:
        summary (LinkSummary):
        daily_metrics (list[LinkMetrics]):
        monthly_metrics (list[LinkMetrics]):
    """

    summary: LinkSummary
    daily_metrics: list[LinkMetrics]
    monthly_metrics: list[LinkMetrics]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        summary = self.summary.to_dict()

        daily_metrics = []
        for daily_metrics_item_data in self.daily_metrics:
            daily_metrics_item = daily_metrics_item_data.to_dict()
            daily_metrics.append(daily_metrics_item)

        monthly_metrics = []
        for monthly_metrics_item_data in self.monthly_metrics:
            monthly_metrics_item = monthly_metrics_item_data.to_dict()
            monthly_metrics.append(monthly_metrics_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "summary": summary,
                "daily_metrics": daily_metrics,
                "monthly_metrics": monthly_metrics,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.link_metrics import LinkMetrics  # noqa: PLC0415
        from ..models.link_summary import LinkSummary  # noqa: PLC0415

        d = dict(src_dict)
        summary = LinkSummary.from_dict(d.pop("summary"))

        daily_metrics = []
        _daily_metrics = d.pop("daily_metrics")
        for daily_metrics_item_data in _daily_metrics:
            daily_metrics_item = LinkMetrics.from_dict(daily_metrics_item_data)

            daily_metrics.append(daily_metrics_item)

        monthly_metrics = []
        _monthly_metrics = d.pop("monthly_metrics")
        for monthly_metrics_item_data in _monthly_metrics:
            monthly_metrics_item = LinkMetrics.from_dict(monthly_metrics_item_data)

            monthly_metrics.append(monthly_metrics_item)

        link_stats = cls(
            summary=summary,
            daily_metrics=daily_metrics,
            monthly_metrics=monthly_metrics,
        )

        link_stats.additional_properties = d
        return link_stats

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
