from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_direct_messages_page import AnswerDirectMessagesPage
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    account_id: int,
    *,
    start_date: None | str | Unset = UNSET,
    end_date: None | str | Unset = UNSET,
    limit: int | Unset = 10,
    query: None | str | Unset = UNSET,
    offset: int | Unset = 0,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_start_date: None | str | Unset
    if isinstance(start_date, Unset):
        json_start_date = UNSET
    else:
        json_start_date = start_date
    params["start_date"] = json_start_date

    json_end_date: None | str | Unset
    if isinstance(end_date, Unset):
        json_end_date = UNSET
    else:
        json_end_date = end_date
    params["end_date"] = json_end_date

    params["limit"] = limit

    json_query: None | str | Unset
    if isinstance(query, Unset):
        json_query = UNSET
    else:
        json_query = query
    params["query"] = json_query

    params["offset"] = offset

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/{account_id}/direct-messages".format(
            account_id=quote(str(account_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerDirectMessagesPage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerDirectMessagesPage.from_dict(response.json())

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
) -> Response[AnswerDirectMessagesPage | ErrorBody]:
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
    start_date: None | str | Unset = UNSET,
    end_date: None | str | Unset = UNSET,
    limit: int | Unset = 10,
    query: None | str | Unset = UNSET,
    offset: int | Unset = 0,
) -> Response[AnswerDirectMessagesPage | ErrorBody]:
    """Direct message statistics (live)

     Delivery and engagement per direct message, newest first.

    ``end_date`` doubles as the cursor, so it is exclusive: the next page ends just before
    the previous page's last message (a bare date or the default includes the whole day).
    A page never ends inside a second, so that cursor loses no message: it holds up to
    ``limit`` messages, fewer before a busy second, or all of one second busier than that.

    Rules: ``end_date`` must not be before ``start_date``; ``offset`` counts only when
    ``query`` is set (it is still validated without it).

    Permission: `api_direct_messages_stats`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        start_date (None | str | Unset): Earliest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-
            MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: two years ago. From start_date to end_date: at most
            36,525 days on this route (the default of the operator's RELAY_FEED_WINDOW_MAX_DAYS);
            longer is a 400.
        end_date (None | str | Unset): Latest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-MM-
            DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: the end of today. From start_date to end_date: at most
            36,525 days on this route (the default of the operator's RELAY_FEED_WINDOW_MAX_DAYS);
            longer is a 400.
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        query (None | str | Unset): Free-text search (see the route).
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerDirectMessagesPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        start_date=start_date,
        end_date=end_date,
        limit=limit,
        query=query,
        offset=offset,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    account_id: int,
    *,
    client: AuthenticatedClient,
    start_date: None | str | Unset = UNSET,
    end_date: None | str | Unset = UNSET,
    limit: int | Unset = 10,
    query: None | str | Unset = UNSET,
    offset: int | Unset = 0,
) -> AnswerDirectMessagesPage | ErrorBody | None:
    """Direct message statistics (live)

     Delivery and engagement per direct message, newest first.

    ``end_date`` doubles as the cursor, so it is exclusive: the next page ends just before
    the previous page's last message (a bare date or the default includes the whole day).
    A page never ends inside a second, so that cursor loses no message: it holds up to
    ``limit`` messages, fewer before a busy second, or all of one second busier than that.

    Rules: ``end_date`` must not be before ``start_date``; ``offset`` counts only when
    ``query`` is set (it is still validated without it).

    Permission: `api_direct_messages_stats`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        start_date (None | str | Unset): Earliest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-
            MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: two years ago. From start_date to end_date: at most
            36,525 days on this route (the default of the operator's RELAY_FEED_WINDOW_MAX_DAYS);
            longer is a 400.
        end_date (None | str | Unset): Latest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-MM-
            DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: the end of today. From start_date to end_date: at most
            36,525 days on this route (the default of the operator's RELAY_FEED_WINDOW_MAX_DAYS);
            longer is a 400.
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        query (None | str | Unset): Free-text search (see the route).
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerDirectMessagesPage | ErrorBody
    """

    return sync_detailed(
        account_id=account_id,
        client=client,
        start_date=start_date,
        end_date=end_date,
        limit=limit,
        query=query,
        offset=offset,
    ).parsed


async def asyncio_detailed(
    account_id: int,
    *,
    client: AuthenticatedClient,
    start_date: None | str | Unset = UNSET,
    end_date: None | str | Unset = UNSET,
    limit: int | Unset = 10,
    query: None | str | Unset = UNSET,
    offset: int | Unset = 0,
) -> Response[AnswerDirectMessagesPage | ErrorBody]:
    """Direct message statistics (live)

     Delivery and engagement per direct message, newest first.

    ``end_date`` doubles as the cursor, so it is exclusive: the next page ends just before
    the previous page's last message (a bare date or the default includes the whole day).
    A page never ends inside a second, so that cursor loses no message: it holds up to
    ``limit`` messages, fewer before a busy second, or all of one second busier than that.

    Rules: ``end_date`` must not be before ``start_date``; ``offset`` counts only when
    ``query`` is set (it is still validated without it).

    Permission: `api_direct_messages_stats`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        start_date (None | str | Unset): Earliest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-
            MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: two years ago. From start_date to end_date: at most
            36,525 days on this route (the default of the operator's RELAY_FEED_WINDOW_MAX_DAYS);
            longer is a 400.
        end_date (None | str | Unset): Latest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-MM-
            DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: the end of today. From start_date to end_date: at most
            36,525 days on this route (the default of the operator's RELAY_FEED_WINDOW_MAX_DAYS);
            longer is a 400.
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        query (None | str | Unset): Free-text search (see the route).
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerDirectMessagesPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        start_date=start_date,
        end_date=end_date,
        limit=limit,
        query=query,
        offset=offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: int,
    *,
    client: AuthenticatedClient,
    start_date: None | str | Unset = UNSET,
    end_date: None | str | Unset = UNSET,
    limit: int | Unset = 10,
    query: None | str | Unset = UNSET,
    offset: int | Unset = 0,
) -> AnswerDirectMessagesPage | ErrorBody | None:
    """Direct message statistics (live)

     Delivery and engagement per direct message, newest first.

    ``end_date`` doubles as the cursor, so it is exclusive: the next page ends just before
    the previous page's last message (a bare date or the default includes the whole day).
    A page never ends inside a second, so that cursor loses no message: it holds up to
    ``limit`` messages, fewer before a busy second, or all of one second busier than that.

    Rules: ``end_date`` must not be before ``start_date``; ``offset`` counts only when
    ``query`` is set (it is still validated without it).

    Permission: `api_direct_messages_stats`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        start_date (None | str | Unset): Earliest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-
            MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: two years ago. From start_date to end_date: at most
            36,525 days on this route (the default of the operator's RELAY_FEED_WINDOW_MAX_DAYS);
            longer is a 400.
        end_date (None | str | Unset): Latest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-MM-
            DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: the end of today. From start_date to end_date: at most
            36,525 days on this route (the default of the operator's RELAY_FEED_WINDOW_MAX_DAYS);
            longer is a 400.
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        query (None | str | Unset): Free-text search (see the route).
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerDirectMessagesPage | ErrorBody
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            client=client,
            start_date=start_date,
            end_date=end_date,
            limit=limit,
            query=query,
            offset=offset,
        )
    ).parsed
