from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_mark_read_result import AnswerMarkReadResult
from ...models.error_body import ErrorBody
from ...models.mark_read_type import MarkReadType
from ...types import Response


def _get_kwargs(
    account_id: int,
    type_: MarkReadType,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/{account_id}/notifications/{type_}/read".format(
            account_id=quote(str(account_id), safe=""),
            type_=quote(str(type_), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerMarkReadResult | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerMarkReadResult.from_dict(response.json())

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

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

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
) -> Response[AnswerMarkReadResult | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    account_id: int,
    type_: MarkReadType,
    *,
    client: AuthenticatedClient,
) -> Response[AnswerMarkReadResult | ErrorBody]:
    """Mark a notification category read (live)

     Marks every notification of the category read; returns the updated counters.

    The route takes no body. One sent anyway is ignored; past the size limit it is a 413
    (the gate reads the body of every route, so the limit holds here too).

    Permission: `api_notifications_mark_read`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        type_ (MarkReadType):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerMarkReadResult | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        type_=type_,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    account_id: int,
    type_: MarkReadType,
    *,
    client: AuthenticatedClient,
) -> AnswerMarkReadResult | ErrorBody | None:
    """Mark a notification category read (live)

     Marks every notification of the category read; returns the updated counters.

    The route takes no body. One sent anyway is ignored; past the size limit it is a 413
    (the gate reads the body of every route, so the limit holds here too).

    Permission: `api_notifications_mark_read`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        type_ (MarkReadType):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerMarkReadResult | ErrorBody
    """

    return sync_detailed(
        account_id=account_id,
        type_=type_,
        client=client,
    ).parsed


async def asyncio_detailed(
    account_id: int,
    type_: MarkReadType,
    *,
    client: AuthenticatedClient,
) -> Response[AnswerMarkReadResult | ErrorBody]:
    """Mark a notification category read (live)

     Marks every notification of the category read; returns the updated counters.

    The route takes no body. One sent anyway is ignored; past the size limit it is a 413
    (the gate reads the body of every route, so the limit holds here too).

    Permission: `api_notifications_mark_read`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        type_ (MarkReadType):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerMarkReadResult | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        type_=type_,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: int,
    type_: MarkReadType,
    *,
    client: AuthenticatedClient,
) -> AnswerMarkReadResult | ErrorBody | None:
    """Mark a notification category read (live)

     Marks every notification of the category read; returns the updated counters.

    The route takes no body. One sent anyway is ignored; past the size limit it is a 413
    (the gate reads the body of every route, so the limit holds here too).

    Permission: `api_notifications_mark_read`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        type_ (MarkReadType):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerMarkReadResult | ErrorBody
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            type_=type_,
            client=client,
        )
    ).parsed
