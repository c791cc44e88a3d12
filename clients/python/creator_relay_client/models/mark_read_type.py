from enum import StrEnum


class MarkReadType(StrEnum):
    COMMENTED = "commented"
    DEACTIVATED_MEDIA = "deactivated_media"
    FAVORITED = "favorited"
    MENTIONED = "mentioned"
    MESSAGE = "message"
    PURCHASES = "purchases"
    SUBSCRIBED = "subscribed"
    TAGS = "tags"
    TIP = "tip"

    def __str__(self) -> str:
        return str(self.value)
