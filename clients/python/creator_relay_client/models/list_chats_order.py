from enum import StrEnum


class ListChatsOrder(StrEnum):
    OLD = "old"
    RECENT = "recent"

    def __str__(self) -> str:
        return str(self.value)
