from enum import StrEnum


class ListChatsFilterType2Type1(StrEnum):
    PINNED = "pinned"
    PRIORITY = "priority"
    UNREAD = "unread"
    WHO_TIPPED = "who_tipped"

    def __str__(self) -> str:
        return str(self.value)
