from enum import StrEnum


class HealthDatabase(StrEnum):
    OK = "ok"
    UNREACHABLE = "unreachable"

    def __str__(self) -> str:
        return str(self.value)
