from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_notifications_page import AnswerNotificationsPage
from ...models.error_body import ErrorBody
from ...models.list_notifications_type_type_1 import ListNotificationsTypeType1
from ...models.list_notifications_type_type_2_type_1 import ListNotificationsTypeType2Type1
from ...models.list_notifications_type_type_3_type_1 import ListNotificationsTypeType3Type1
from ...types import UNSET, Response, Unset


def _get_kwargs(
    account_id: int,
    *,
    limit: int | Unset = 10,
    type_: ListNotificationsTypeType1
    | ListNotificationsTypeType2Type1
    | ListNotificationsTypeType3Type1
    | None
    | Unset = UNSET,
    from_id: int | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_type_: None | str | Unset
    if isinstance(type_, Unset):
        json_type_ = UNSET
    elif isinstance(type_, ListNotificationsTypeType1):
        json_type_ = type_.value
    elif isinstance(type_, ListNotificationsTypeType2Type1):
        json_type_ = type_.value
    elif isinstance(type_, ListNotificationsTypeType3Type1):
        json_type_ = type_.value
    else:
        json_type_ = type_
    params["type"] = json_type_

    json_from_id: int | None | Unset
    if isinstance(from_id, Unset):
        json_from_id = UNSET
    else:
        json_from_id = from_id
    params["from_id"] = json_from_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/{account_id}/notifications".format(
            account_id=quote(str(account_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerNotificationsPage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerNotificationsPage.from_dict(response.json())

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
) -> Response[AnswerNotificationsPage | ErrorBody]:
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
    type_: ListNotificationsTypeType1
    | ListNotificationsTypeType2Type1
    | ListNotificationsTypeType3Type1
    | None
    | Unset = UNSET,
    from_id: int | None | Unset = UNSET,
) -> Response[AnswerNotificationsPage | ErrorBody]:
    """Notifications (live)

     Newest first; the next page starts after the last id of this one (``from_id``).

    Permission: `api_notifications_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        type_ (ListNotificationsTypeType1 | ListNotificationsTypeType2Type1 |
            ListNotificationsTypeType3Type1 | None | Unset):
        from_id (int | None | Unset): Cursor: the last notification id of the previous page.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerNotificationsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        limit=limit,
        type_=type_,
        from_id=from_id,
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
    type_: ListNotificationsTypeType1
    | ListNotificationsTypeType2Type1
    | ListNotificationsTypeType3Type1
    | None
    | Unset = UNSET,
    from_id: int | None | Unset = UNSET,
) -> AnswerNotificationsPage | ErrorBody | None:
    """Notifications (live)

     Newest first; the next page starts after the last id of this one (``from_id``).

    Permission: `api_notifications_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        type_ (ListNotificationsTypeType1 | ListNotificationsTypeType2Type1 |
            ListNotificationsTypeType3Type1 | None | Unset):
        from_id (int | None | Unset): Cursor: the last notification id of the previous page.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerNotificationsPage | ErrorBody
    """

    return sync_detailed(
        account_id=account_id,
        client=client,
        limit=limit,
        type_=type_,
        from_id=from_id,
    ).parsed


async def asyncio_detailed(
    account_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 10,
    type_: ListNotificationsTypeType1
    | ListNotificationsTypeType2Type1
    | ListNotificationsTypeType3Type1
    | None
    | Unset = UNSET,
    from_id: int | None | Unset = UNSET,
) -> Response[AnswerNotificationsPage | ErrorBody]:
    """Notifications (live)

     Newest first; the next page starts after the last id of this one (``from_id``).

    Permission: `api_notifications_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        type_ (ListNotificationsTypeType1 | ListNotificationsTypeType2Type1 |
            ListNotificationsTypeType3Type1 | None | Unset):
        from_id (int | None | Unset): Cursor: the last notification id of the previous page.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerNotificationsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        limit=limit,
        type_=type_,
        from_id=from_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 10,
    type_: ListNotificationsTypeType1
    | ListNotificationsTypeType2Type1
    | ListNotificationsTypeType3Type1
    | None
    | Unset = UNSET,
    from_id: int | None | Unset = UNSET,
) -> AnswerNotificationsPage | ErrorBody | None:
    """Notifications (live)

     Newest first; the next page starts after the last id of this one (``from_id``).

    Permission: `api_notifications_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 100. Default: 10.
        type_ (ListNotificationsTypeType1 | ListNotificationsTypeType2Type1 |
            ListNotificationsTypeType3Type1 | None | Unset):
        from_id (int | None | Unset): Cursor: the last notification id of the previous page.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerNotificationsPage | ErrorBody
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            client=client,
            limit=limit,
            type_=type_,
            from_id=from_id,
        )
    ).parsed
