from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_posts_page import AnswerPostsPage
from ...models.error_body import ErrorBody
from ...models.list_posts_media_type_type_1 import ListPostsMediaTypeType1
from ...models.list_posts_media_type_type_2_type_1 import ListPostsMediaTypeType2Type1
from ...models.list_posts_media_type_type_3_type_1 import ListPostsMediaTypeType3Type1
from ...models.list_posts_order import ListPostsOrder
from ...types import UNSET, Response, Unset


def _get_kwargs(
    account_id: int,
    *,
    fresh: bool | Unset = False,
    limit: int | Unset = 10,
    media_type: ListPostsMediaTypeType1
    | ListPostsMediaTypeType2Type1
    | ListPostsMediaTypeType3Type1
    | None
    | Unset = UNSET,
    label: None | str | Unset = UNSET,
    exclude_label: None | str | Unset = UNSET,
    query: None | str | Unset = UNSET,
    pinned: bool | None | Unset = UNSET,
    order: ListPostsOrder | Unset = ListPostsOrder.PUBLISH_DATE_DESC,
    counters: bool | Unset = True,
    before_publish_time: None | str | Unset = UNSET,
    after_publish_time: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["fresh"] = fresh

    params["limit"] = limit

    json_media_type: None | str | Unset
    if isinstance(media_type, Unset):
        json_media_type = UNSET
    elif isinstance(media_type, ListPostsMediaTypeType1):
        json_media_type = media_type.value
    elif isinstance(media_type, ListPostsMediaTypeType2Type1):
        json_media_type = media_type.value
    elif isinstance(media_type, ListPostsMediaTypeType3Type1):
        json_media_type = media_type.value
    else:
        json_media_type = media_type
    params["media_type"] = json_media_type

    json_label: None | str | Unset
    if isinstance(label, Unset):
        json_label = UNSET
    else:
        json_label = label
    params["label"] = json_label

    json_exclude_label: None | str | Unset
    if isinstance(exclude_label, Unset):
        json_exclude_label = UNSET
    else:
        json_exclude_label = exclude_label
    params["exclude_label"] = json_exclude_label

    json_query: None | str | Unset
    if isinstance(query, Unset):
        json_query = UNSET
    else:
        json_query = query
    params["query"] = json_query

    json_pinned: bool | None | Unset
    if isinstance(pinned, Unset):
        json_pinned = UNSET
    else:
        json_pinned = pinned
    params["pinned"] = json_pinned

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    params["counters"] = counters

    json_before_publish_time: None | str | Unset
    if isinstance(before_publish_time, Unset):
        json_before_publish_time = UNSET
    else:
        json_before_publish_time = before_publish_time
    params["before_publish_time"] = json_before_publish_time

    json_after_publish_time: None | str | Unset
    if isinstance(after_publish_time, Unset):
        json_after_publish_time = UNSET
    else:
        json_after_publish_time = after_publish_time
    params["after_publish_time"] = json_after_publish_time

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/{account_id}/posts".format(
            account_id=quote(str(account_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerPostsPage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerPostsPage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 402:
        response_402 = ErrorBody.from_dict(response.json())

        return response_402

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 424:
        response_424 = ErrorBody.from_dict(response.json())

        return response_424

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = ErrorBody.from_dict(response.json())

        return response_431

    if response.status_code == 500:
        response_500 = ErrorBody.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AnswerPostsPage | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    account_id: int,
    *,
    client: AuthenticatedClient,
    fresh: bool | Unset = False,
    limit: int | Unset = 10,
    media_type: ListPostsMediaTypeType1
    | ListPostsMediaTypeType2Type1
    | ListPostsMediaTypeType3Type1
    | None
    | Unset = UNSET,
    label: None | str | Unset = UNSET,
    exclude_label: None | str | Unset = UNSET,
    query: None | str | Unset = UNSET,
    pinned: bool | None | Unset = UNSET,
    order: ListPostsOrder | Unset = ListPostsOrder.PUBLISH_DATE_DESC,
    counters: bool | Unset = True,
    before_publish_time: None | str | Unset = UNSET,
    after_publish_time: None | str | Unset = UNSET,
) -> Response[AnswerPostsPage | ErrorBody]:
    """Posts (store)

     The feed in one of five orders, cursor-paged by tailMarker.

    Rules: descending orders page with ``before_publish_time``, ascending ones
    (``publish_date_asc``, ``tips_summ_asc``) with ``after_publish_time``: the other cursor
    is a 400 naming it. For the value orders (favorites, tips) the cursor must be the
    tailMarker of a post (else 400). ``limit`` above 100 is clamped to 100.

    Permission: `api_posts_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        fresh (bool | Unset): true: read the upstream live, even when the store covers the window.
            Default: False.
        limit (int | Unset): Page size, at least 1; above 100 is clamped to 100. Default: 10.
        media_type (ListPostsMediaTypeType1 | ListPostsMediaTypeType2Type1 |
            ListPostsMediaTypeType3Type1 | None | Unset):
        label (None | str | Unset): Label: must be a numeric label id (up to 18 digits), archived
            or private_archived.
        exclude_label (None | str | Unset): Label: must be a numeric label id (up to 18 digits),
            archived or private_archived.
        query (None | str | Unset): Case-insensitive text in captions.
        pinned (bool | None | Unset):
        order (ListPostsOrder | Unset):  Default: ListPostsOrder.PUBLISH_DATE_DESC.
        counters (bool | Unset):  Default: True.
        before_publish_time (None | str | Unset): The previous page's tailMarker; must be unix
            seconds with up to six decimals (a tailMarker).
        after_publish_time (None | str | Unset): The previous page's tailMarker; must be unix
            seconds with up to six decimals (a tailMarker).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerPostsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        fresh=fresh,
        limit=limit,
        media_type=media_type,
        label=label,
        exclude_label=exclude_label,
        query=query,
        pinned=pinned,
        order=order,
        counters=counters,
        before_publish_time=before_publish_time,
        after_publish_time=after_publish_time,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    account_id: int,
    *,
    client: AuthenticatedClient,
    fresh: bool | Unset = False,
    limit: int | Unset = 10,
    media_type: ListPostsMediaTypeType1
    | ListPostsMediaTypeType2Type1
    | ListPostsMediaTypeType3Type1
    | None
    | Unset = UNSET,
    label: None | str | Unset = UNSET,
    exclude_label: None | str | Unset = UNSET,
    query: None | str | Unset = UNSET,
    pinned: bool | None | Unset = UNSET,
    order: ListPostsOrder | Unset = ListPostsOrder.PUBLISH_DATE_DESC,
    counters: bool | Unset = True,
    before_publish_time: None | str | Unset = UNSET,
    after_publish_time: None | str | Unset = UNSET,
) -> AnswerPostsPage | ErrorBody | None:
    """Posts (store)

     The feed in one of five orders, cursor-paged by tailMarker.

    Rules: descending orders page with ``before_publish_time``, ascending ones
    (``publish_date_asc``, ``tips_summ_asc``) with ``after_publish_time``: the other cursor
    is a 400 naming it. For the value orders (favorites, tips) the cursor must be the
    tailMarker of a post (else 400). ``limit`` above 100 is clamped to 100.

    Permission: `api_posts_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        fresh (bool | Unset): true: read the upstream live, even when the store covers the window.
            Default: False.
        limit (int | Unset): Page size, at least 1; above 100 is clamped to 100. Default: 10.
        media_type (ListPostsMediaTypeType1 | ListPostsMediaTypeType2Type1 |
            ListPostsMediaTypeType3Type1 | None | Unset):
        label (None | str | Unset): Label: must be a numeric label id (up to 18 digits), archived
            or private_archived.
        exclude_label (None | str | Unset): Label: must be a numeric label id (up to 18 digits),
            archived or private_archived.
        query (None | str | Unset): Case-insensitive text in captions.
        pinned (bool | None | Unset):
        order (ListPostsOrder | Unset):  Default: ListPostsOrder.PUBLISH_DATE_DESC.
        counters (bool | Unset):  Default: True.
        before_publish_time (None | str | Unset): The previous page's tailMarker; must be unix
            seconds with up to six decimals (a tailMarker).
        after_publish_time (None | str | Unset): The previous page's tailMarker; must be unix
            seconds with up to six decimals (a tailMarker).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerPostsPage | ErrorBody
    """

    return sync_detailed(
        account_id=account_id,
        client=client,
        fresh=fresh,
        limit=limit,
        media_type=media_type,
        label=label,
        exclude_label=exclude_label,
        query=query,
        pinned=pinned,
        order=order,
        counters=counters,
        before_publish_time=before_publish_time,
        after_publish_time=after_publish_time,
    ).parsed


async def asyncio_detailed(
    account_id: int,
    *,
    client: AuthenticatedClient,
    fresh: bool | Unset = False,
    limit: int | Unset = 10,
    media_type: ListPostsMediaTypeType1
    | ListPostsMediaTypeType2Type1
    | ListPostsMediaTypeType3Type1
    | None
    | Unset = UNSET,
    label: None | str | Unset = UNSET,
    exclude_label: None | str | Unset = UNSET,
    query: None | str | Unset = UNSET,
    pinned: bool | None | Unset = UNSET,
    order: ListPostsOrder | Unset = ListPostsOrder.PUBLISH_DATE_DESC,
    counters: bool | Unset = True,
    before_publish_time: None | str | Unset = UNSET,
    after_publish_time: None | str | Unset = UNSET,
) -> Response[AnswerPostsPage | ErrorBody]:
    """Posts (store)

     The feed in one of five orders, cursor-paged by tailMarker.

    Rules: descending orders page with ``before_publish_time``, ascending ones
    (``publish_date_asc``, ``tips_summ_asc``) with ``after_publish_time``: the other cursor
    is a 400 naming it. For the value orders (favorites, tips) the cursor must be the
    tailMarker of a post (else 400). ``limit`` above 100 is clamped to 100.

    Permission: `api_posts_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        fresh (bool | Unset): true: read the upstream live, even when the store covers the window.
            Default: False.
        limit (int | Unset): Page size, at least 1; above 100 is clamped to 100. Default: 10.
        media_type (ListPostsMediaTypeType1 | ListPostsMediaTypeType2Type1 |
            ListPostsMediaTypeType3Type1 | None | Unset):
        label (None | str | Unset): Label: must be a numeric label id (up to 18 digits), archived
            or private_archived.
        exclude_label (None | str | Unset): Label: must be a numeric label id (up to 18 digits),
            archived or private_archived.
        query (None | str | Unset): Case-insensitive text in captions.
        pinned (bool | None | Unset):
        order (ListPostsOrder | Unset):  Default: ListPostsOrder.PUBLISH_DATE_DESC.
        counters (bool | Unset):  Default: True.
        before_publish_time (None | str | Unset): The previous page's tailMarker; must be unix
            seconds with up to six decimals (a tailMarker).
        after_publish_time (None | str | Unset): The previous page's tailMarker; must be unix
            seconds with up to six decimals (a tailMarker).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerPostsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        fresh=fresh,
        limit=limit,
        media_type=media_type,
        label=label,
        exclude_label=exclude_label,
        query=query,
        pinned=pinned,
        order=order,
        counters=counters,
        before_publish_time=before_publish_time,
        after_publish_time=after_publish_time,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: int,
    *,
    client: AuthenticatedClient,
    fresh: bool | Unset = False,
    limit: int | Unset = 10,
    media_type: ListPostsMediaTypeType1
    | ListPostsMediaTypeType2Type1
    | ListPostsMediaTypeType3Type1
    | None
    | Unset = UNSET,
    label: None | str | Unset = UNSET,
    exclude_label: None | str | Unset = UNSET,
    query: None | str | Unset = UNSET,
    pinned: bool | None | Unset = UNSET,
    order: ListPostsOrder | Unset = ListPostsOrder.PUBLISH_DATE_DESC,
    counters: bool | Unset = True,
    before_publish_time: None | str | Unset = UNSET,
    after_publish_time: None | str | Unset = UNSET,
) -> AnswerPostsPage | ErrorBody | None:
    """Posts (store)

     The feed in one of five orders, cursor-paged by tailMarker.

    Rules: descending orders page with ``before_publish_time``, ascending ones
    (``publish_date_asc``, ``tips_summ_asc``) with ``after_publish_time``: the other cursor
    is a 400 naming it. For the value orders (favorites, tips) the cursor must be the
    tailMarker of a post (else 400). ``limit`` above 100 is clamped to 100.

    Permission: `api_posts_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        fresh (bool | Unset): true: read the upstream live, even when the store covers the window.
            Default: False.
        limit (int | Unset): Page size, at least 1; above 100 is clamped to 100. Default: 10.
        media_type (ListPostsMediaTypeType1 | ListPostsMediaTypeType2Type1 |
            ListPostsMediaTypeType3Type1 | None | Unset):
        label (None | str | Unset): Label: must be a numeric label id (up to 18 digits), archived
            or private_archived.
        exclude_label (None | str | Unset): Label: must be a numeric label id (up to 18 digits),
            archived or private_archived.
        query (None | str | Unset): Case-insensitive text in captions.
        pinned (bool | None | Unset):
        order (ListPostsOrder | Unset):  Default: ListPostsOrder.PUBLISH_DATE_DESC.
        counters (bool | Unset):  Default: True.
        before_publish_time (None | str | Unset): The previous page's tailMarker; must be unix
            seconds with up to six decimals (a tailMarker).
        after_publish_time (None | str | Unset): The previous page's tailMarker; must be unix
            seconds with up to six decimals (a tailMarker).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerPostsPage | ErrorBody
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            client=client,
            fresh=fresh,
            limit=limit,
            media_type=media_type,
            label=label,
            exclude_label=exclude_label,
            query=query,
            pinned=pinned,
            order=order,
            counters=counters,
            before_publish_time=before_publish_time,
            after_publish_time=after_publish_time,
        )
    ).parsed
