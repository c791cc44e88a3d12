from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_link_stats import AnswerLinkStats
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    account_id: int,
    link_id: int,
    *,
    date_start: None | str | Unset = UNSET,
    date_end: None | str | Unset = UNSET,
    fresh: bool | Unset = False,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_date_start: None | str | Unset
    if isinstance(date_start, Unset):
        json_date_start = UNSET
    else:
        json_date_start = date_start
    params["date_start"] = json_date_start

    json_date_end: None | str | Unset
    if isinstance(date_end, Unset):
        json_date_end = UNSET
    else:
        json_date_end = date_end
    params["date_end"] = json_date_end

    params["fresh"] = fresh

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/{account_id}/tracking-links/{link_id}/stats".format(
            account_id=quote(str(account_id), safe=""),
            link_id=quote(str(link_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerLinkStats | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerLinkStats.from_dict(response.json())

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
) -> Response[AnswerLinkStats | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    account_id: int,
    link_id: int,
    *,
    client: AuthenticatedClient,
    date_start: None | str | Unset = UNSET,
    date_end: None | str | Unset = UNSET,
    fresh: bool | Unset = False,
) -> Response[AnswerLinkStats | ErrorBody]:
    """Tracking link stats (store)

     One link's summary and daily and monthly metrics.

    Rules: ``date_end`` must not be before ``date_start``; an absent one leaves the window
    open on that side. An unknown link is a 404.

    Permission: `api_tracking_links_read`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        link_id (int): The tracking link (campaign) id.
        date_start (None | str | Unset): UTC. must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601
            (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59
            UTC. Absent: unbounded. From date_start to date_end (when both are given): at most 3,660
            days on this route (the default of the operator's RELAY_DAILY_WINDOW_MAX_DAYS); longer is
            a 400.
        date_end (None | str | Unset): UTC. must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601
            (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59
            UTC. Absent: unbounded. From date_start to date_end (when both are given): at most 3,660
            days on this route (the default of the operator's RELAY_DAILY_WINDOW_MAX_DAYS); longer is
            a 400.
        fresh (bool | Unset): true: read the upstream live, even when the store covers the window.
            Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerLinkStats | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        link_id=link_id,
        date_start=date_start,
        date_end=date_end,
        fresh=fresh,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    account_id: int,
    link_id: int,
    *,
    client: AuthenticatedClient,
    date_start: None | str | Unset = UNSET,
    date_end: None | str | Unset = UNSET,
    fresh: bool | Unset = False,
) -> AnswerLinkStats | ErrorBody | None:
    """Tracking link stats (store)

     One link's summary and daily and monthly metrics.

    Rules: ``date_end`` must not be before ``date_start``; an absent one leaves the window
    open on that side. An unknown link is a 404.

    Permission: `api_tracking_links_read`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        link_id (int): The tracking link (campaign) id.
        date_start (None | str | Unset): UTC. must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601
            (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59
            UTC. Absent: unbounded. From date_start to date_end (when both are given): at most 3,660
            days on this route (the default of the operator's RELAY_DAILY_WINDOW_MAX_DAYS); longer is
            a 400.
        date_end (None | str | Unset): UTC. must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601
            (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59
            UTC. Absent: unbounded. From date_start to date_end (when both are given): at most 3,660
            days on this route (the default of the operator's RELAY_DAILY_WINDOW_MAX_DAYS); longer is
            a 400.
        fresh (bool | Unset): true: read the upstream live, even when the store covers the window.
            Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerLinkStats | ErrorBody
    """

    return sync_detailed(
        account_id=account_id,
        link_id=link_id,
        client=client,
        date_start=date_start,
        date_end=date_end,
        fresh=fresh,
    ).parsed


async def asyncio_detailed(
    account_id: int,
    link_id: int,
    *,
    client: AuthenticatedClient,
    date_start: None | str | Unset = UNSET,
    date_end: None | str | Unset = UNSET,
    fresh: bool | Unset = False,
) -> Response[AnswerLinkStats | ErrorBody]:
    """Tracking link stats (store)

     One link's summary and daily and monthly metrics.

    Rules: ``date_end`` must not be before ``date_start``; an absent one leaves the window
    open on that side. An unknown link is a 404.

    Permission: `api_tracking_links_read`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        link_id (int): The tracking link (campaign) id.
        date_start (None | str | Unset): UTC. must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601
            (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59
            UTC. Absent: unbounded. From date_start to date_end (when both are given): at most 3,660
            days on this route (the default of the operator's RELAY_DAILY_WINDOW_MAX_DAYS); longer is
            a 400.
        date_end (None | str | Unset): UTC. must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601
            (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59
            UTC. Absent: unbounded. From date_start to date_end (when both are given): at most 3,660
            days on this route (the default of the operator's RELAY_DAILY_WINDOW_MAX_DAYS); longer is
            a 400.
        fresh (bool | Unset): true: read the upstream live, even when the store covers the window.
            Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerLinkStats | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        link_id=link_id,
        date_start=date_start,
        date_end=date_end,
        fresh=fresh,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: int,
    link_id: int,
    *,
    client: AuthenticatedClient,
    date_start: None | str | Unset = UNSET,
    date_end: None | str | Unset = UNSET,
    fresh: bool | Unset = False,
) -> AnswerLinkStats | ErrorBody | None:
    """Tracking link stats (store)

     One link's summary and daily and monthly metrics.

    Rules: ``date_end`` must not be before ``date_start``; an absent one leaves the window
    open on that side. An unknown link is a 404.

    Permission: `api_tracking_links_read`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        link_id (int): The tracking link (campaign) id.
        date_start (None | str | Unset): UTC. must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601
            (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59
            UTC. Absent: unbounded. From date_start to date_end (when both are given): at most 3,660
            days on this route (the default of the operator's RELAY_DAILY_WINDOW_MAX_DAYS); longer is
            a 400.
        date_end (None | str | Unset): UTC. must be YYYY-MM-DD HH:MM:SS, YYYY-MM-DD or ISO 8601
            (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and 9999-12-30 23:59:59
            UTC. Absent: unbounded. From date_start to date_end (when both are given): at most 3,660
            days on this route (the default of the operator's RELAY_DAILY_WINDOW_MAX_DAYS); longer is
            a 400.
        fresh (bool | Unset): true: read the upstream live, even when the store covers the window.
            Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerLinkStats | ErrorBody
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            link_id=link_id,
            client=client,
            date_start=date_start,
            date_end=date_end,
            fresh=fresh,
        )
    ).parsed
