from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cache import Cache
    from ..models.credits_ import Credits
    from ..models.rate_limits import RateLimits


T = TypeVar("T", bound="Meta")


@_attrs_define
class Meta:
    """
    Attributes:
        field_credits_ (Credits):
        field_rate_limits (RateLimits):
        field_cache (Cache | None | Unset):
    """

    field_credits_: Credits
    field_rate_limits: RateLimits
    field_cache: Cache | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cache import Cache  # noqa: PLC0415

        field_credits_ = self.field_credits_.to_dict()

        field_rate_limits = self.field_rate_limits.to_dict()

        field_cache: dict[str, Any] | None | Unset
        if isinstance(self.field_cache, Unset):
            field_cache = UNSET
        elif isinstance(self.field_cache, Cache):
            field_cache = self.field_cache.to_dict()
        else:
            field_cache = self.field_cache

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "_credits": field_credits_,
                "_rate_limits": field_rate_limits,
            }
        )
        if field_cache is not UNSET:
            field_dict["_cache"] = field_cache

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cache import Cache  # noqa: PLC0415
        from ..models.credits_ import Credits  # noqa: PLC0415
        from ..models.rate_limits import RateLimits  # noqa: PLC0415

        d = dict(src_dict)
        field_credits_ = Credits.from_dict(d.pop("_credits"))

        field_rate_limits = RateLimits.from_dict(d.pop("_rate_limits"))

        def _parse_field_cache(data: object) -> Cache | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                field_cache_type_0 = Cache.from_dict(data)

                return field_cache_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Cache | None | Unset, data)

        field_cache = _parse_field_cache(d.pop("_cache", UNSET))

        meta = cls(
            field_credits_=field_credits_,
            field_rate_limits=field_rate_limits,
            field_cache=field_cache,
        )

        meta.additional_properties = d
        return meta

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
