from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_promotions_trials_page import AnswerPromotionsTrialsPage
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    account_id: int,
    *,
    limit: int | Unset = 100,
    offset: int | Unset = 0,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["offset"] = offset

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/{account_id}/promotions-trials".format(
            account_id=quote(str(account_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerPromotionsTrialsPage | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerPromotionsTrialsPage.from_dict(response.json())

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
) -> Response[AnswerPromotionsTrialsPage | ErrorBody]:
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
    limit: int | Unset = 100,
    offset: int | Unset = 0,
) -> Response[AnswerPromotionsTrialsPage | ErrorBody]:
    """Promotions and trials (live)

     Promo and trial items, each with exactly one of ``promo`` or ``trial``; offset-paged.

    Permission: `api_promotions_trials_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 200. Default: 100.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerPromotionsTrialsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        limit=limit,
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
    limit: int | Unset = 100,
    offset: int | Unset = 0,
) -> AnswerPromotionsTrialsPage | ErrorBody | None:
    """Promotions and trials (live)

     Promo and trial items, each with exactly one of ``promo`` or ``trial``; offset-paged.

    Permission: `api_promotions_trials_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 200. Default: 100.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerPromotionsTrialsPage | ErrorBody
    """

    return sync_detailed(
        account_id=account_id,
        client=client,
        limit=limit,
        offset=offset,
    ).parsed


async def asyncio_detailed(
    account_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    offset: int | Unset = 0,
) -> Response[AnswerPromotionsTrialsPage | ErrorBody]:
    """Promotions and trials (live)

     Promo and trial items, each with exactly one of ``promo`` or ``trial``; offset-paged.

    Permission: `api_promotions_trials_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 200. Default: 100.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerPromotionsTrialsPage | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        limit=limit,
        offset=offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 100,
    offset: int | Unset = 0,
) -> AnswerPromotionsTrialsPage | ErrorBody | None:
    """Promotions and trials (live)

     Promo and trial items, each with exactly one of ``promo`` or ``trial``; offset-paged.

    Permission: `api_promotions_trials_list`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        limit (int | Unset): Page size, 1 to 200. Default: 100.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerPromotionsTrialsPage | ErrorBody
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            client=client,
            limit=limit,
            offset=offset,
        )
    ).parsed
