from enum import StrEnum


class EarningsChartBy(StrEnum):
    CHAT_MESSAGES = "chat_messages"
    POST = "post"
    STREAM = "stream"
    SUBSCRIBES = "subscribes"
    TIPS = "tips"
    TIPS_CHAT = "tips_chat"
    TIPS_POST = "tips_post"
    TIPS_PROFILE = "tips_profile"
    TIPS_STORY = "tips_story"
    TIPS_STREAM = "tips_stream"
    TOTAL = "total"

    def __str__(self) -> str:
        return str(self.value)
