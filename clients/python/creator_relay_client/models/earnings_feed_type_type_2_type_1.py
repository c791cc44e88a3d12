from enum import StrEnum


class EarningsFeedTypeType2Type1(StrEnum):
    CHAT_MESSAGES = "chat_messages"
    POST = "post"
    STREAM = "stream"
    SUBSCRIBES = "subscribes"
    TIPS = "tips"

    def __str__(self) -> str:
        return str(self.value)
