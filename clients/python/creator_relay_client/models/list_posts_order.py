from enum import StrEnum


class ListPostsOrder(StrEnum):
    FAVORITES_COUNT_DESC = "favorites_count_desc"
    PUBLISH_DATE_ASC = "publish_date_asc"
    PUBLISH_DATE_DESC = "publish_date_desc"
    TIPS_SUMM_ASC = "tips_summ_asc"
    TIPS_SUMM_DESC = "tips_summ_desc"

    def __str__(self) -> str:
        return str(self.value)
