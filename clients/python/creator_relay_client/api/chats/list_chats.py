from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_chats_page import AnswerChatsPage
from ...models.error_body import ErrorBody
from ...models.list_chats_filter_type_1 import ListChatsFilterType1
from ...models.list_chats_filter_type_2_type_1 import ListChatsFilterType2Type1
from ...models.list_chats_filter_type_3_type_1 import ListChatsFilterType3Type1
from ...models.list_chats_order import ListChatsOrder
from ...models.list_chats_skip_users import ListChatsSkipUsers
from ...types import UNSET, Response, Unset


def _get_kwargs(
    account_id: int,
    *,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
    skip_users: ListChatsSkipUsers | Unset = ListChatsSkipUsers.ALL,
    order: ListChatsOrder | Unset = ListChatsOrder.RECENT,
    filter_: ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 | None | Unset = UNSET,
    list_id: int | None | Unset = UNSET,
    query: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["offset"] = offset

    json_skip_users: str | Unset = UNSET
    if not isinstance(skip_users, Unset):
        json_skip_users = skip_users.value

    params["skip_users"] = json_skip_users

    json_order: str | Unset = UNSET
    if not isinstance(order, Unset):
        json_order = order.value

    params["order"] = json_order

    json_filter_: None | str | Unset
    if isinstance(filter_, Unset):
        json_filter_ = UNSET
    elif isinstance(filter_, ListChatsFilterType1):
        json_filter_ = filter_.value
    elif isinstance(filter_, ListChatsFilterType2Type1):
        json_filter_ = filter_.value
    elif isinstance(filter_, ListChatsFilterType3Type1):
        json_filter_ = filter_.value
    else:
        json_filter_ = filter_
    params["filter"] = json_filter_

    json_list_id: int | None | Unset
    if isinstance(list_id, Unset):
        json_list_id = UNSET
    else:
        json_list_id = list_id
    params["list_id"] = json_list_id

    json_query: None | str | Unset
    if isinstance(query, Unset):
        json_query = UNSET
    else:
        json_query = query
    params["query"] = json_query

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/{account_id}/chats".format(
            account_id=quote(str(account_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerChatsPage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerChatsPage.from_dict(response.json())

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
) -> Response[AnswerChatsPage | ErrorBody]:
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
    limit: int | Unset = 10,
    offset: int | Unset = 0,
    skip_users: ListChatsSkipUsers | Unset = ListChatsSkipUsers.ALL,
    order: ListChatsOrder | Unset = ListChatsOrder.RECENT,
    filter_: ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 | None | Unset = UNSET,
    list_id: int | None | Unset = UNSET,
    query: None | str | Unset = UNSET,
) -> Response[AnswerChatsPage | ErrorBody]:
    """Chats (live)

     The account's chats, newest (``recent``) or oldest first; offset-paged.

    Rules: ``filter`` and ``list_id`` are mutually exclusive (400 naming ``list_id``); an
    unknown ``list_id`` is the upstream's 400.

    Permission: `api_chats_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.
        skip_users (ListChatsSkipUsers | Unset):  Default: ListChatsSkipUsers.ALL.
        order (ListChatsOrder | Unset):  Default: ListChatsOrder.RECENT.
        filter_ (ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 |
            None | Unset):
        list_id (int | None | Unset): Custom list id (from the lists route). Not with filter.
        query (None | str | Unset): Free-text search (see the route).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerChatsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        limit=limit,
        offset=offset,
        skip_users=skip_users,
        order=order,
        filter_=filter_,
        list_id=list_id,
        query=query,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    account_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
    skip_users: ListChatsSkipUsers | Unset = ListChatsSkipUsers.ALL,
    order: ListChatsOrder | Unset = ListChatsOrder.RECENT,
    filter_: ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 | None | Unset = UNSET,
    list_id: int | None | Unset = UNSET,
    query: None | str | Unset = UNSET,
) -> AnswerChatsPage | ErrorBody | None:
    """Chats (live)

     The account's chats, newest (``recent``) or oldest first; offset-paged.

    Rules: ``filter`` and ``list_id`` are mutually exclusive (400 naming ``list_id``); an
    unknown ``list_id`` is the upstream's 400.

    Permission: `api_chats_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.
        skip_users (ListChatsSkipUsers | Unset):  Default: ListChatsSkipUsers.ALL.
        order (ListChatsOrder | Unset):  Default: ListChatsOrder.RECENT.
        filter_ (ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 |
            None | Unset):
        list_id (int | None | Unset): Custom list id (from the lists route). Not with filter.
        query (None | str | Unset): Free-text search (see the route).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerChatsPage | ErrorBody
    """

    return sync_detailed(
        account_id=account_id,
        client=client,
        limit=limit,
        offset=offset,
        skip_users=skip_users,
        order=order,
        filter_=filter_,
        list_id=list_id,
        query=query,
    ).parsed


async def asyncio_detailed(
    account_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
    skip_users: ListChatsSkipUsers | Unset = ListChatsSkipUsers.ALL,
    order: ListChatsOrder | Unset = ListChatsOrder.RECENT,
    filter_: ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 | None | Unset = UNSET,
    list_id: int | None | Unset = UNSET,
    query: None | str | Unset = UNSET,
) -> Response[AnswerChatsPage | ErrorBody]:
    """Chats (live)

     The account's chats, newest (``recent``) or oldest first; offset-paged.

    Rules: ``filter`` and ``list_id`` are mutually exclusive (400 naming ``list_id``); an
    unknown ``list_id`` is the upstream's 400.

    Permission: `api_chats_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.
        skip_users (ListChatsSkipUsers | Unset):  Default: ListChatsSkipUsers.ALL.
        order (ListChatsOrder | Unset):  Default: ListChatsOrder.RECENT.
        filter_ (ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 |
            None | Unset):
        list_id (int | None | Unset): Custom list id (from the lists route). Not with filter.
        query (None | str | Unset): Free-text search (see the route).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerChatsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        limit=limit,
        offset=offset,
        skip_users=skip_users,
        order=order,
        filter_=filter_,
        list_id=list_id,
        query=query,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 10,
    offset: int | Unset = 0,
    skip_users: ListChatsSkipUsers | Unset = ListChatsSkipUsers.ALL,
    order: ListChatsOrder | Unset = ListChatsOrder.RECENT,
    filter_: ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 | None | Unset = UNSET,
    list_id: int | None | Unset = UNSET,
    query: None | str | Unset = UNSET,
) -> AnswerChatsPage | ErrorBody | None:
    """Chats (live)

     The account's chats, newest (``recent``) or oldest first; offset-paged.

    Rules: ``filter`` and ``list_id`` are mutually exclusive (400 naming ``list_id``); an
    unknown ``list_id`` is the upstream's 400.

    Permission: `api_chats_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.
        skip_users (ListChatsSkipUsers | Unset):  Default: ListChatsSkipUsers.ALL.
        order (ListChatsOrder | Unset):  Default: ListChatsOrder.RECENT.
        filter_ (ListChatsFilterType1 | ListChatsFilterType2Type1 | ListChatsFilterType3Type1 |
            None | Unset):
        list_id (int | None | Unset): Custom list id (from the lists route). Not with filter.
        query (None | str | Unset): Free-text search (see the route).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerChatsPage | ErrorBody
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            client=client,
            limit=limit,
            offset=offset,
            skip_users=skip_users,
            order=order,
            filter_=filter_,
            list_id=list_id,
            query=query,
        )
    ).parsed
