from enum import StrEnum


class EarningsFeedTipsSourceType1(StrEnum):
    CHAT = "chat"
    POST_ALL = "post_all"
    PROFILE = "profile"
    STORY = "story"
    STREAM = "stream"

    def __str__(self) -> str:
        return str(self.value)
