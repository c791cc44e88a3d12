from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_events_page import AnswerEventsPage
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    after: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    type_: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_after: None | str | Unset
    if isinstance(after, Unset):
        json_after = UNSET
    else:
        json_after = after
    params["after"] = json_after

    params["limit"] = limit

    json_type_: None | str | Unset
    if isinstance(type_, Unset):
        json_type_ = UNSET
    else:
        json_type_ = type_
    params["type"] = json_type_

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/events",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerEventsPage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerEventsPage.from_dict(response.json())

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
) -> Response[AnswerEventsPage | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    after: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    type_: None | str | Unset = UNSET,
) -> Response[AnswerEventsPage | ErrorBody]:
    """Events feed

     Events of the caller's organization after ``after``, oldest first.

    ``data.cursor`` is where to continue (the last event's cursor, or ``after`` itself when
    the page is empty): poll with ``after=data.cursor`` and no event is missed or repeated.

    Permission: `api_events_list`.

    Args:
        after (None | str | Unset): Cursor: the "cursor" of the last event you have (data.cursor
            of the previous page); omitted: from the oldest event kept.
        limit (int | Unset): Page size. Default: 100.
        type_ (None | str | Unset): Comma-separated event types; omitted: every type.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerEventsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        after=after,
        limit=limit,
        type_=type_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    after: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    type_: None | str | Unset = UNSET,
) -> AnswerEventsPage | ErrorBody | None:
    """Events feed

     Events of the caller's organization after ``after``, oldest first.

    ``data.cursor`` is where to continue (the last event's cursor, or ``after`` itself when
    the page is empty): poll with ``after=data.cursor`` and no event is missed or repeated.

    Permission: `api_events_list`.

    Args:
        after (None | str | Unset): Cursor: the "cursor" of the last event you have (data.cursor
            of the previous page); omitted: from the oldest event kept.
        limit (int | Unset): Page size. Default: 100.
        type_ (None | str | Unset): Comma-separated event types; omitted: every type.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerEventsPage | ErrorBody
    """

    return sync_detailed(
        client=client,
        after=after,
        limit=limit,
        type_=type_,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    after: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    type_: None | str | Unset = UNSET,
) -> Response[AnswerEventsPage | ErrorBody]:
    """Events feed

     Events of the caller's organization after ``after``, oldest first.

    ``data.cursor`` is where to continue (the last event's cursor, or ``after`` itself when
    the page is empty): poll with ``after=data.cursor`` and no event is missed or repeated.

    Permission: `api_events_list`.

    Args:
        after (None | str | Unset): Cursor: the "cursor" of the last event you have (data.cursor
            of the previous page); omitted: from the oldest event kept.
        limit (int | Unset): Page size. Default: 100.
        type_ (None | str | Unset): Comma-separated event types; omitted: every type.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerEventsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        after=after,
        limit=limit,
        type_=type_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    after: None | str | Unset = UNSET,
    limit: int | Unset = 100,
    type_: None | str | Unset = UNSET,
) -> AnswerEventsPage | ErrorBody | None:
    """Events feed

     Events of the caller's organization after ``after``, oldest first.

    ``data.cursor`` is where to continue (the last event's cursor, or ``after`` itself when
    the page is empty): poll with ``after=data.cursor`` and no event is missed or repeated.

    Permission: `api_events_list`.

    Args:
        after (None | str | Unset): Cursor: the "cursor" of the last event you have (data.cursor
            of the previous page); omitted: from the oldest event kept.
        limit (int | Unset): Page size. Default: 100.
        type_ (None | str | Unset): Comma-separated event types; omitted: every type.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerEventsPage | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            after=after,
            limit=limit,
            type_=type_,
        )
    ).parsed
