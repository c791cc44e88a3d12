from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.top_countries_rows_item import TopCountriesRowsItem
    from ..models.visitor_totals import VisitorTotals


T = TypeVar("T", bound="TopCountries")


@_attrs_define
class TopCountries:
    """
    Attributes:
        has_more (bool):
        totals (VisitorTotals):
        rows (list[TopCountriesRowsItem]):
    """

    has_more: bool
    totals: VisitorTotals
    rows: list[TopCountriesRowsItem]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        has_more = self.has_more

        totals = self.totals.to_dict()

        rows = []
        for rows_item_data in self.rows:
            rows_item = rows_item_data.to_dict()
            rows.append(rows_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hasMore": has_more,
                "totals": totals,
                "rows": rows,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.top_countries_rows_item import TopCountriesRowsItem  # noqa: PLC0415
        from ..models.visitor_totals import VisitorTotals  # noqa: PLC0415

        d = dict(src_dict)
        has_more = d.pop("hasMore")

        totals = VisitorTotals.from_dict(d.pop("totals"))

        rows = []
        _rows = d.pop("rows")
        for rows_item_data in _rows:
            rows_item = TopCountriesRowsItem.from_dict(rows_item_data)

            rows.append(rows_item)

        top_countries = cls(
            has_more=has_more,
            totals=totals,
            rows=rows,
        )

        top_countries.additional_properties = d
        return top_countries

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
