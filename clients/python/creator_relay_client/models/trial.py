from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Trial")


@_attrs_define
class Trial:
    """
    Attributes:
        id (int):
        url (str):
        trial_link_name (str):
        subscribe_days (int):
        subscribe_counts (int):
        claim_counts (int):
        created_at (str): ISO 8601 timestamp with UTC offset.
        expired_at (None | str): ISO 8601 timestamp with UTC offset.
        is_finished (bool):
    """

    id: int
    url: str
    trial_link_name: str
    subscribe_days: int
    subscribe_counts: int
    claim_counts: int
    created_at: str
    expired_at: None | str
    is_finished: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        url = self.url

        trial_link_name = self.trial_link_name

        subscribe_days = self.subscribe_days

        subscribe_counts = self.subscribe_counts

        claim_counts = self.claim_counts

        created_at = self.created_at

        expired_at: None | str
        expired_at = self.expired_at

        is_finished = self.is_finished

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "url": url,
                "trialLinkName": trial_link_name,
                "subscribeDays": subscribe_days,
                "subscribeCounts": subscribe_counts,
                "claimCounts": claim_counts,
                "createdAt": created_at,
                "expiredAt": expired_at,
                "isFinished": is_finished,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        url = d.pop("url")

        trial_link_name = d.pop("trialLinkName")

        subscribe_days = d.pop("subscribeDays")

        subscribe_counts = d.pop("subscribeCounts")

        claim_counts = d.pop("claimCounts")

        created_at = d.pop("createdAt")

        def _parse_expired_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        expired_at = _parse_expired_at(d.pop("expiredAt"))

        is_finished = d.pop("isFinished")

        trial = cls(
            id=id,
            url=url,
            trial_link_name=trial_link_name,
            subscribe_days=subscribe_days,
            subscribe_counts=subscribe_counts,
            claim_counts=claim_counts,
            created_at=created_at,
            expired_at=expired_at,
            is_finished=is_finished,
        )

        trial.additional_properties = d
        return trial

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
