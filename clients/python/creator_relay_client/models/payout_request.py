from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PayoutRequest")


@_attrs_define
class PayoutRequest:
    """
    Attributes:
        invoice_id (str):
        created_at (str): ISO 8601 timestamp with UTC offset.
        amount (float):
        currency (str):
        state (str):
        reject_reason (None | str):
    """

    invoice_id: str
    created_at: str
    amount: float
    currency: str
    state: str
    reject_reason: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        invoice_id = self.invoice_id

        created_at = self.created_at

        amount = self.amount

        currency = self.currency

        state = self.state

        reject_reason: None | str
        reject_reason = self.reject_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "invoiceId": invoice_id,
                "createdAt": created_at,
                "amount": amount,
                "currency": currency,
                "state": state,
                "rejectReason": reject_reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        invoice_id = d.pop("invoiceId")

        created_at = d.pop("createdAt")

        amount = d.pop("amount")

        currency = d.pop("currency")

        state = d.pop("state")

        def _parse_reject_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reject_reason = _parse_reject_reason(d.pop("rejectReason"))

        payout_request = cls(
            invoice_id=invoice_id,
            created_at=created_at,
            amount=amount,
            currency=currency,
            state=state,
            reject_reason=reject_reason,
        )

        payout_request.additional_properties = d
        return payout_request

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
