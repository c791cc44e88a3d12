"""Contains all the data models used in inputs/outputs"""

from .answer_campaigns_chart import AnswerCampaignsChart
from .answer_campaigns_overview import AnswerCampaignsOverview
from .answer_chargebacks_page import AnswerChargebacksPage
from .answer_chat_lists_page import AnswerChatListsPage
from .answer_chats_page import AnswerChatsPage
from .answer_direct_messages_page import AnswerDirectMessagesPage
from .answer_earnings_chart import AnswerEarningsChart
from .answer_earnings_overview import AnswerEarningsOverview
from .answer_earnings_page import AnswerEarningsPage
from .answer_events_page import AnswerEventsPage
from .answer_link_stats import AnswerLinkStats
from .answer_mark_read_result import AnswerMarkReadResult
from .answer_notifications_page import AnswerNotificationsPage
from .answer_payout_requests_page import AnswerPayoutRequestsPage
from .answer_posts_page import AnswerPostsPage
from .answer_processing_media_list import AnswerProcessingMediaList
from .answer_profile_visitors import AnswerProfileVisitors
from .answer_promotions_page import AnswerPromotionsPage
from .answer_promotions_trials_page import AnswerPromotionsTrialsPage
from .answer_scheduled_chats import AnswerScheduledChats
from .answer_trending_gifs import AnswerTrendingGifs
from .answer_vault_lists_page import AnswerVaultListsPage
from .cache import Cache
from .cache_source import CacheSource
from .campaigns_chart import CampaignsChart
from .campaigns_overview import CampaignsOverview
from .campaigns_summary import CampaignsSummary
from .change import Change
from .chargeback import Chargeback
from .chargebacks_page import ChargebacksPage
from .chat import Chat
from .chat_list import ChatList
from .chat_lists_page import ChatListsPage
from .chat_user import ChatUser
from .chats_page import ChatsPage
from .content_section import ContentSection
from .count_change import CountChange
from .counter import Counter
from .credits_ import Credits
from .current_total import CurrentTotal
from .date_point import DatePoint
from .day_count import DayCount
from .direct_message_stats import DirectMessageStats
from .direct_messages_page import DirectMessagesPage
from .earnings_chart import EarningsChart
from .earnings_chart_by import EarningsChartBy
from .earnings_feed_tips_source_type_1 import EarningsFeedTipsSourceType1
from .earnings_feed_tips_source_type_2_type_1 import EarningsFeedTipsSourceType2Type1
from .earnings_feed_tips_source_type_3_type_1 import EarningsFeedTipsSourceType3Type1
from .earnings_feed_type_type_1 import EarningsFeedTypeType1
from .earnings_feed_type_type_2_type_1 import EarningsFeedTypeType2Type1
from .earnings_feed_type_type_3_type_1 import EarningsFeedTypeType3Type1
from .earnings_overview import EarningsOverview
from .earnings_overview_by_type_1 import EarningsOverviewByType1
from .earnings_overview_by_type_2_type_1 import EarningsOverviewByType2Type1
from .earnings_overview_by_type_3_type_1 import EarningsOverviewByType3Type1
from .earnings_page import EarningsPage
from .earnings_row import EarningsRow
from .error_body import ErrorBody
from .event import Event
from .event_data import EventData
from .events_page import EventsPage
from .export_rows_format import ExportRowsFormat
from .file_url import FileUrl
from .gif import Gif
from .gif_image import GifImage
from .gif_images import GifImages
from .gif_pagination import GifPagination
from .health import Health
from .health_database import HealthDatabase
from .health_status import HealthStatus
from .last_message import LastMessage
from .link_metrics import LinkMetrics
from .link_stats import LinkStats
from .link_summary import LinkSummary
from .list_chats_filter_type_1 import ListChatsFilterType1
from .list_chats_filter_type_2_type_1 import ListChatsFilterType2Type1
from .list_chats_filter_type_3_type_1 import ListChatsFilterType3Type1
from .list_chats_order import ListChatsOrder
from .list_chats_skip_users import ListChatsSkipUsers
from .list_notifications_type_type_1 import ListNotificationsTypeType1
from .list_notifications_type_type_2_type_1 import ListNotificationsTypeType2Type1
from .list_notifications_type_type_3_type_1 import ListNotificationsTypeType3Type1
from .list_posts_media_type_type_1 import ListPostsMediaTypeType1
from .list_posts_media_type_type_2_type_1 import ListPostsMediaTypeType2Type1
from .list_posts_media_type_type_3_type_1 import ListPostsMediaTypeType3Type1
from .list_posts_order import ListPostsOrder
from .mark_read_result import MarkReadResult
from .mark_read_result_counters import MarkReadResultCounters
from .mark_read_type import MarkReadType
from .media import Media
from .media_files import MediaFiles
from .meta import Meta
from .money_change import MoneyChange
from .notification import Notification
from .notifications_page import NotificationsPage
from .pagination import Pagination
from .payment import Payment
from .payout_request import PayoutRequest
from .payout_requests_page import PayoutRequestsPage
from .post import Post
from .post_counters import PostCounters
from .posts_page import PostsPage
from .processing_media import ProcessingMedia
from .processing_media_list import ProcessingMediaList
from .profile_visitors import ProfileVisitors
from .profile_visitors_by import ProfileVisitorsBy
from .promo import Promo
from .promo_or_trial import PromoOrTrial
from .promo_section import PromoSection
from .promotions_page import PromotionsPage
from .promotions_trials_page import PromotionsTrialsPage
from .rate_limits import RateLimits
from .scheduled_chat import ScheduledChat
from .scheduled_chats import ScheduledChats
from .scheduled_entity import ScheduledEntity
from .subscriptions import Subscriptions
from .top_countries import TopCountries
from .top_countries_rows_item import TopCountriesRowsItem
from .top_duration_users import TopDurationUsers
from .trending_gifs import TrendingGifs
from .trial import Trial
from .user_ref import UserRef
from .user_summary import UserSummary
from .user_summary_avatar_thumbs_type_0 import UserSummaryAvatarThumbsType0
from .vault_counts import VaultCounts
from .vault_list import VaultList
from .vault_lists_page import VaultListsPage
from .vault_media import VaultMedia
from .visitor_totals import VisitorTotals
from .visitors_chart import VisitorsChart
from .visitors_section import VisitorsSection

__all__ = (
    "AnswerCampaignsChart",
    "AnswerCampaignsOverview",
    "AnswerChargebacksPage",
    "AnswerChatListsPage",
    "AnswerChatsPage",
    "AnswerDirectMessagesPage",
    "AnswerEarningsChart",
    "AnswerEarningsOverview",
    "AnswerEarningsPage",
    "AnswerEventsPage",
    "AnswerLinkStats",
    "AnswerMarkReadResult",
    "AnswerNotificationsPage",
    "AnswerPayoutRequestsPage",
    "AnswerPostsPage",
    "AnswerProcessingMediaList",
    "AnswerProfileVisitors",
    "AnswerPromotionsPage",
    "AnswerPromotionsTrialsPage",
    "AnswerScheduledChats",
    "AnswerTrendingGifs",
    "AnswerVaultListsPage",
    "Cache",
    "CacheSource",
    "CampaignsChart",
    "CampaignsOverview",
    "CampaignsSummary",
    "Change",
    "Chargeback",
    "ChargebacksPage",
    "Chat",
    "ChatList",
    "ChatListsPage",
    "ChatsPage",
    "ChatUser",
    "ContentSection",
    "CountChange",
    "Counter",
    "Credits",
    "CurrentTotal",
    "DatePoint",
    "DayCount",
    "DirectMessagesPage",
    "DirectMessageStats",
    "EarningsChart",
    "EarningsChartBy",
    "EarningsFeedTipsSourceType1",
    "EarningsFeedTipsSourceType2Type1",
    "EarningsFeedTipsSourceType3Type1",
    "EarningsFeedTypeType1",
    "EarningsFeedTypeType2Type1",
    "EarningsFeedTypeType3Type1",
    "EarningsOverview",
    "EarningsOverviewByType1",
    "EarningsOverviewByType2Type1",
    "EarningsOverviewByType3Type1",
    "EarningsPage",
    "EarningsRow",
    "ErrorBody",
    "Event",
    "EventData",
    "EventsPage",
    "ExportRowsFormat",
    "FileUrl",
    "Gif",
    "GifImage",
    "GifImages",
    "GifPagination",
    "Health",
    "HealthDatabase",
    "HealthStatus",
    "LastMessage",
    "LinkMetrics",
    "LinkStats",
    "LinkSummary",
    "ListChatsFilterType1",
    "ListChatsFilterType2Type1",
    "ListChatsFilterType3Type1",
    "ListChatsOrder",
    "ListChatsSkipUsers",
    "ListNotificationsTypeType1",
    "ListNotificationsTypeType2Type1",
    "ListNotificationsTypeType3Type1",
    "ListPostsMediaTypeType1",
    "ListPostsMediaTypeType2Type1",
    "ListPostsMediaTypeType3Type1",
    "ListPostsOrder",
    "MarkReadResult",
    "MarkReadResultCounters",
    "MarkReadType",
    "Media",
    "MediaFiles",
    "Meta",
    "MoneyChange",
    "Notification",
    "NotificationsPage",
    "Pagination",
    "Payment",
    "PayoutRequest",
    "PayoutRequestsPage",
    "Post",
    "PostCounters",
    "PostsPage",
    "ProcessingMedia",
    "ProcessingMediaList",
    "ProfileVisitors",
    "ProfileVisitorsBy",
    "Promo",
    "PromoOrTrial",
    "PromoSection",
    "PromotionsPage",
    "PromotionsTrialsPage",
    "RateLimits",
    "ScheduledChat",
    "ScheduledChats",
    "ScheduledEntity",
    "Subscriptions",
    "TopCountries",
    "TopCountriesRowsItem",
    "TopDurationUsers",
    "TrendingGifs",
    "Trial",
    "UserRef",
    "UserSummary",
    "UserSummaryAvatarThumbsType0",
    "VaultCounts",
    "VaultList",
    "VaultListsPage",
    "VaultMedia",
    "VisitorsChart",
    "VisitorsSection",
    "VisitorTotals",
)
