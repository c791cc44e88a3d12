from enum import StrEnum


class ProfileVisitorsBy(StrEnum):
    GUESTS = "guests"
    SUBSCRIBERS = "subscribers"
    TOTAL = "total"
    USERS = "users"

    def __str__(self) -> str:
        return str(self.value)
