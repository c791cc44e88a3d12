from enum import StrEnum


class ListChatsSkipUsers(StrEnum):
    ALL = "all"
    NONE = "none"

    def __str__(self) -> str:
        return str(self.value)
