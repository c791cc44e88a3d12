from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.content_section import ContentSection
    from ..models.money_change import MoneyChange
    from ..models.promo_section import PromoSection
    from ..models.visitors_section import VisitorsSection


T = TypeVar("T", bound="EarningsOverview")


@_attrs_define
class EarningsOverview:
    """
    Attributes:
        earning (MoneyChange | None | Unset):
        posts (ContentSection | None | Unset):
        streams (ContentSection | None | Unset):
        visitors (None | Unset | VisitorsSection):
        mass_messages (ContentSection | None | Unset):
        story (ContentSection | None | Unset):
        promo (None | PromoSection | Unset):
    """

    earning: MoneyChange | None | Unset = UNSET
    posts: ContentSection | None | Unset = UNSET
    streams: ContentSection | None | Unset = UNSET
    visitors: None | Unset | VisitorsSection = UNSET
    mass_messages: ContentSection | None | Unset = UNSET
    story: ContentSection | None | Unset = UNSET
    promo: None | PromoSection | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.content_section import ContentSection  # noqa: PLC0415
        from ..models.money_change import MoneyChange  # noqa: PLC0415
        from ..models.promo_section import PromoSection  # noqa: PLC0415
        from ..models.visitors_section import VisitorsSection  # noqa: PLC0415

        earning: dict[str, Any] | None | Unset
        if isinstance(self.earning, Unset):
            earning = UNSET
        elif isinstance(self.earning, MoneyChange):
            earning = self.earning.to_dict()
        else:
            earning = self.earning

        posts: dict[str, Any] | None | Unset
        if isinstance(self.posts, Unset):
            posts = UNSET
        elif isinstance(self.posts, ContentSection):
            posts = self.posts.to_dict()
        else:
            posts = self.posts

        streams: dict[str, Any] | None | Unset
        if isinstance(self.streams, Unset):
            streams = UNSET
        elif isinstance(self.streams, ContentSection):
            streams = self.streams.to_dict()
        else:
            streams = self.streams

        visitors: dict[str, Any] | None | Unset
        if isinstance(self.visitors, Unset):
            visitors = UNSET
        elif isinstance(self.visitors, VisitorsSection):
            visitors = self.visitors.to_dict()
        else:
            visitors = self.visitors

        mass_messages: dict[str, Any] | None | Unset
        if isinstance(self.mass_messages, Unset):
            mass_messages = UNSET
        elif isinstance(self.mass_messages, ContentSection):
            mass_messages = self.mass_messages.to_dict()
        else:
            mass_messages = self.mass_messages

        story: dict[str, Any] | None | Unset
        if isinstance(self.story, Unset):
            story = UNSET
        elif isinstance(self.story, ContentSection):
            story = self.story.to_dict()
        else:
            story = self.story

        promo: dict[str, Any] | None | Unset
        if isinstance(self.promo, Unset):
            promo = UNSET
        elif isinstance(self.promo, PromoSection):
            promo = self.promo.to_dict()
        else:
            promo = self.promo

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if earning is not UNSET:
            field_dict["earning"] = earning
        if posts is not UNSET:
            field_dict["posts"] = posts
        if streams is not UNSET:
            field_dict["streams"] = streams
        if visitors is not UNSET:
            field_dict["visitors"] = visitors
        if mass_messages is not UNSET:
            field_dict["massMessages"] = mass_messages
        if story is not UNSET:
            field_dict["story"] = story
        if promo is not UNSET:
            field_dict["promo"] = promo

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.content_section import ContentSection  # noqa: PLC0415
        from ..models.money_change import MoneyChange  # noqa: PLC0415
        from ..models.promo_section import PromoSection  # noqa: PLC0415
        from ..models.visitors_section import VisitorsSection  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_earning(data: object) -> MoneyChange | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                earning_type_0 = MoneyChange.from_dict(data)

                return earning_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MoneyChange | None | Unset, data)

        earning = _parse_earning(d.pop("earning", UNSET))

        def _parse_posts(data: object) -> ContentSection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                posts_type_0 = ContentSection.from_dict(data)

                return posts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContentSection | None | Unset, data)

        posts = _parse_posts(d.pop("posts", UNSET))

        def _parse_streams(data: object) -> ContentSection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                streams_type_0 = ContentSection.from_dict(data)

                return streams_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContentSection | None | Unset, data)

        streams = _parse_streams(d.pop("streams", UNSET))

        def _parse_visitors(data: object) -> None | Unset | VisitorsSection:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                visitors_type_0 = VisitorsSection.from_dict(data)

                return visitors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | VisitorsSection, data)

        visitors = _parse_visitors(d.pop("visitors", UNSET))

        def _parse_mass_messages(data: object) -> ContentSection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                mass_messages_type_0 = ContentSection.from_dict(data)

                return mass_messages_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContentSection | None | Unset, data)

        mass_messages = _parse_mass_messages(d.pop("massMessages", UNSET))

        def _parse_story(data: object) -> ContentSection | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                story_type_0 = ContentSection.from_dict(data)

                return story_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ContentSection | None | Unset, data)

        story = _parse_story(d.pop("story", UNSET))

        def _parse_promo(data: object) -> None | PromoSection | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                promo_type_0 = PromoSection.from_dict(data)

                return promo_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PromoSection | Unset, data)

        promo = _parse_promo(d.pop("promo", UNSET))

        earnings_overview = cls(
            earning=earning,
            posts=posts,
            streams=streams,
            visitors=visitors,
            mass_messages=mass_messages,
            story=story,
            promo=promo,
        )

        earnings_overview.additional_properties = d
        return earnings_overview

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
