from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.events_page import EventsPage
    from ..models.meta import Meta
    from ..models.pagination import Pagination


T = TypeVar("T", bound="AnswerEventsPage")


@_attrs_define
class AnswerEventsPage:
    """
    Attributes:
        data (EventsPage):
        field_meta (Meta):
        field_pagination (None | Pagination | Unset):
    """

    data: EventsPage
    field_meta: Meta
    field_pagination: None | Pagination | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.pagination import Pagination  # noqa: PLC0415

        data = self.data.to_dict()

        field_meta = self.field_meta.to_dict()

        field_pagination: dict[str, Any] | None | Unset
        if isinstance(self.field_pagination, Unset):
            field_pagination = UNSET
        elif isinstance(self.field_pagination, Pagination):
            field_pagination = self.field_pagination.to_dict()
        else:
            field_pagination = self.field_pagination

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "_meta": field_meta,
            }
        )
        if field_pagination is not UNSET:
            field_dict["_pagination"] = field_pagination

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.events_page import EventsPage  # noqa: PLC0415
        from ..models.meta import Meta  # noqa: PLC0415
        from ..models.pagination import Pagination  # noqa: PLC0415

        d = dict(src_dict)
        data = EventsPage.from_dict(d.pop("data"))

        field_meta = Meta.from_dict(d.pop("_meta"))

        def _parse_field_pagination(data: object) -> None | Pagination | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                field_pagination_type_0 = Pagination.from_dict(data)

                return field_pagination_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Pagination | Unset, data)

        field_pagination = _parse_field_pagination(d.pop("_pagination", UNSET))

        answer_events_page = cls(
            data=data,
            field_meta=field_meta,
            field_pagination=field_pagination,
        )

        answer_events_page.additional_properties = d
        return answer_events_page

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
