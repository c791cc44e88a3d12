from enum import StrEnum


class ListPostsMediaTypeType3Type1(StrEnum):
    AUDIOS = "audios"
    MEDIAS = "medias"
    PHOTOS = "photos"
    VIDEOS = "videos"

    def __str__(self) -> str:
        return str(self.value)
