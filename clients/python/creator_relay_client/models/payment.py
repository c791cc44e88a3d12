from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.user_summary import UserSummary


T = TypeVar("T", bound="Payment")


@_attrs_define
class Payment:
    """
    Attributes:
        id (str):
        amount (float):
        vat_amount (float):
        tax_amount (float):
        media_tax_amount (float):
        net (float):
        fee (float):
        currency (str):
        created_at (str): ISO 8601 timestamp with UTC offset.
        description (str):
        status (str):
        user (UserSummary):
    """

    id: str
    amount: float
    vat_amount: float
    tax_amount: float
    media_tax_amount: float
    net: float
    fee: float
    currency: str
    created_at: str
    description: str
    status: str
    user: UserSummary
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        amount = self.amount

        vat_amount = self.vat_amount

        tax_amount = self.tax_amount

        media_tax_amount = self.media_tax_amount

        net = self.net

        fee = self.fee

        currency = self.currency

        created_at = self.created_at

        description = self.description

        status = self.status

        user = self.user.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "amount": amount,
                "vatAmount": vat_amount,
                "taxAmount": tax_amount,
                "mediaTaxAmount": media_tax_amount,
                "net": net,
                "fee": fee,
                "currency": currency,
                "createdAt": created_at,
                "description": description,
                "status": status,
                "user": user,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.user_summary import UserSummary  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        amount = d.pop("amount")

        vat_amount = d.pop("vatAmount")

        tax_amount = d.pop("taxAmount")

        media_tax_amount = d.pop("mediaTaxAmount")

        net = d.pop("net")

        fee = d.pop("fee")

        currency = d.pop("currency")

        created_at = d.pop("createdAt")

        description = d.pop("description")

        status = d.pop("status")

        user = UserSummary.from_dict(d.pop("user"))

        payment = cls(
            id=id,
            amount=amount,
            vat_amount=vat_amount,
            tax_amount=tax_amount,
            media_tax_amount=media_tax_amount,
            net=net,
            fee=fee,
            currency=currency,
            created_at=created_at,
            description=description,
            status=status,
            user=user,
        )

        payment.additional_properties = d
        return payment

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
