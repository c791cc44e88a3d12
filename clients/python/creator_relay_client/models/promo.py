from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Promo")


@_attrs_define
class Promo:
    """
    Attributes:
        id (int):
        message (str):
        raw_message (str):
        has_related_promo (bool):
        price (float):
        type_ (str):
        can_claim (bool):
        claims_count (int):
        subscribe_counts (int | None):
        subscribe_days (int):
        created_at (str): ISO 8601 timestamp with UTC offset.
        finished_at (None | str): ISO 8601 timestamp with UTC offset.
        is_finished (bool):
    """

    id: int
    message: str
    raw_message: str
    has_related_promo: bool
    price: float
    type_: str
    can_claim: bool
    claims_count: int
    subscribe_counts: int | None
    subscribe_days: int
    created_at: str
    finished_at: None | str
    is_finished: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        message = self.message

        raw_message = self.raw_message

        has_related_promo = self.has_related_promo

        price = self.price

        type_ = self.type_

        can_claim = self.can_claim

        claims_count = self.claims_count

        subscribe_counts: int | None
        subscribe_counts = self.subscribe_counts

        subscribe_days = self.subscribe_days

        created_at = self.created_at

        finished_at: None | str
        finished_at = self.finished_at

        is_finished = self.is_finished

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "message": message,
                "rawMessage": raw_message,
                "hasRelatedPromo": has_related_promo,
                "price": price,
                "type": type_,
                "canClaim": can_claim,
                "claimsCount": claims_count,
                "subscribeCounts": subscribe_counts,
                "subscribeDays": subscribe_days,
                "createdAt": created_at,
                "finishedAt": finished_at,
                "isFinished": is_finished,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        message = d.pop("message")

        raw_message = d.pop("rawMessage")

        has_related_promo = d.pop("hasRelatedPromo")

        price = d.pop("price")

        type_ = d.pop("type")

        can_claim = d.pop("canClaim")

        claims_count = d.pop("claimsCount")

        def _parse_subscribe_counts(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        subscribe_counts = _parse_subscribe_counts(d.pop("subscribeCounts"))

        subscribe_days = d.pop("subscribeDays")

        created_at = d.pop("createdAt")

        def _parse_finished_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        finished_at = _parse_finished_at(d.pop("finishedAt"))

        is_finished = d.pop("isFinished")

        promo = cls(
            id=id,
            message=message,
            raw_message=raw_message,
            has_related_promo=has_related_promo,
            price=price,
            type_=type_,
            can_claim=can_claim,
            claims_count=claims_count,
            subscribe_counts=subscribe_counts,
            subscribe_days=subscribe_days,
            created_at=created_at,
            finished_at=finished_at,
            is_finished=is_finished,
        )

        promo.additional_properties = d
        return promo

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
