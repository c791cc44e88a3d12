from enum import StrEnum


class EarningsOverviewByType1(StrEnum):
    EARNINGS = "earnings"
    MASSMESSAGES = "massMessages"
    POSTS = "posts"
    PROMO = "promo"
    STORY = "story"
    STREAMS = "streams"
    VISITORS = "visitors"

    def __str__(self) -> str:
        return str(self.value)
