from enum import StrEnum


class CacheSource(StrEnum):
    STORE = "store"
    UPSTREAM = "upstream"

    def __str__(self) -> str:
        return str(self.value)
