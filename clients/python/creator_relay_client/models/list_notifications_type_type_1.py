from enum import StrEnum


class ListNotificationsTypeType1(StrEnum):
    COMMENTED = "commented"
    DEACTIVATED_MEDIA = "deactivated_media"
    FAVORITED = "favorited"
    MENTIONED = "mentioned"
    MESSAGE = "message"
    PAIDED_MESSAGE = "paided_message"
    PURCHASES = "purchases"
    SUBSCRIBED = "subscribed"
    SYSTEM = "system"
    TAGS = "tags"
    TIP = "tip"

    def __str__(self) -> str:
        return str(self.value)
