from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_user import ChatUser
    from ..models.last_message import LastMessage


T = TypeVar("T", bound="Chat")


@_attrs_define
class Chat:
    """
    Attributes:
        last_message (LastMessage):
        can_send_message (bool):
        can_go_to_profile (bool):
        unread_messages_count (int):
        last_read_message_id (int):
        has_unread_tips (bool):
        is_muted_notifications (bool):
        has_purchased_feed (bool):
        count_pinned_messages (int):
        with_user (ChatUser | None | Unset):
    """

    last_message: LastMessage
    can_send_message: bool
    can_go_to_profile: bool
    unread_messages_count: int
    last_read_message_id: int
    has_unread_tips: bool
    is_muted_notifications: bool
    has_purchased_feed: bool
    count_pinned_messages: int
    with_user: ChatUser | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.chat_user import ChatUser  # noqa: PLC0415

        last_message = self.last_message.to_dict()

        can_send_message = self.can_send_message

        can_go_to_profile = self.can_go_to_profile

        unread_messages_count = self.unread_messages_count

        last_read_message_id = self.last_read_message_id

        has_unread_tips = self.has_unread_tips

        is_muted_notifications = self.is_muted_notifications

        has_purchased_feed = self.has_purchased_feed

        count_pinned_messages = self.count_pinned_messages

        with_user: dict[str, Any] | None | Unset
        if isinstance(self.with_user, Unset):
            with_user = UNSET
        elif isinstance(self.with_user, ChatUser):
            with_user = self.with_user.to_dict()
        else:
            with_user = self.with_user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "lastMessage": last_message,
                "canSendMessage": can_send_message,
                "canGoToProfile": can_go_to_profile,
                "unreadMessagesCount": unread_messages_count,
                "lastReadMessageId": last_read_message_id,
                "hasUnreadTips": has_unread_tips,
                "isMutedNotifications": is_muted_notifications,
                "hasPurchasedFeed": has_purchased_feed,
                "countPinnedMessages": count_pinned_messages,
            }
        )
        if with_user is not UNSET:
            field_dict["withUser"] = with_user

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_user import ChatUser  # noqa: PLC0415
        from ..models.last_message import LastMessage  # noqa: PLC0415

        d = dict(src_dict)
        last_message = LastMessage.from_dict(d.pop("lastMessage"))

        can_send_message = d.pop("canSendMessage")

        can_go_to_profile = d.pop("canGoToProfile")

        unread_messages_count = d.pop("unreadMessagesCount")

        last_read_message_id = d.pop("lastReadMessageId")

        has_unread_tips = d.pop("hasUnreadTips")

        is_muted_notifications = d.pop("isMutedNotifications")

        has_purchased_feed = d.pop("hasPurchasedFeed")

        count_pinned_messages = d.pop("countPinnedMessages")

        def _parse_with_user(data: object) -> ChatUser | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                with_user_type_0 = ChatUser.from_dict(data)

                return with_user_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatUser | None | Unset, data)

        with_user = _parse_with_user(d.pop("withUser", UNSET))

        chat = cls(
            last_message=last_message,
            can_send_message=can_send_message,
            can_go_to_profile=can_go_to_profile,
            unread_messages_count=unread_messages_count,
            last_read_message_id=last_read_message_id,
            has_unread_tips=has_unread_tips,
            is_muted_notifications=is_muted_notifications,
            has_purchased_feed=has_purchased_feed,
            count_pinned_messages=count_pinned_messages,
            with_user=with_user,
        )

        chat.additional_properties = d
        return chat

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
