from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.promo import Promo
    from ..models.trial import Trial


T = TypeVar("T", bound="PromoOrTrial")


@_attrs_define
class PromoOrTrial:
    """
    Attributes:
        promo (None | Promo | Unset):
        trial (None | Trial | Unset):
    """

    promo: None | Promo | Unset = UNSET
    trial: None | Trial | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.promo import Promo  # noqa: PLC0415
        from ..models.trial import Trial  # noqa: PLC0415

        promo: dict[str, Any] | None | Unset
        if isinstance(self.promo, Unset):
            promo = UNSET
        elif isinstance(self.promo, Promo):
            promo = self.promo.to_dict()
        else:
            promo = self.promo

        trial: dict[str, Any] | None | Unset
        if isinstance(self.trial, Unset):
            trial = UNSET
        elif isinstance(self.trial, Trial):
            trial = self.trial.to_dict()
        else:
            trial = self.trial

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if promo is not UNSET:
            field_dict["promo"] = promo
        if trial is not UNSET:
            field_dict["trial"] = trial

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.promo import Promo  # noqa: PLC0415
        from ..models.trial import Trial  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_promo(data: object) -> None | Promo | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                promo_type_0 = Promo.from_dict(data)

                return promo_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Promo | Unset, data)

        promo = _parse_promo(d.pop("promo", UNSET))

        def _parse_trial(data: object) -> None | Trial | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                trial_type_0 = Trial.from_dict(data)

                return trial_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Trial | Unset, data)

        trial = _parse_trial(d.pop("trial", UNSET))

        promo_or_trial = cls(
            promo=promo,
            trial=trial,
        )

        promo_or_trial.additional_properties = d
        return promo_or_trial

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
