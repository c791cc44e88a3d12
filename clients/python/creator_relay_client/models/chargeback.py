from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.payment import Payment


T = TypeVar("T", bound="Chargeback")


@_attrs_define
class Chargeback:
    """
    Attributes:
        id (int):
        created_at (str): ISO 8601 timestamp with UTC offset.
        payment_type (str):
        payment (Payment):
    """

    id: int
    created_at: str
    payment_type: str
    payment: Payment
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        created_at = self.created_at

        payment_type = self.payment_type

        payment = self.payment.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "createdAt": created_at,
                "paymentType": payment_type,
                "payment": payment,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.payment import Payment  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        created_at = d.pop("createdAt")

        payment_type = d.pop("paymentType")

        payment = Payment.from_dict(d.pop("payment"))

        chargeback = cls(
            id=id,
            created_at=created_at,
            payment_type=payment_type,
            payment=payment,
        )

        chargeback.additional_properties = d
        return chargeback

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
