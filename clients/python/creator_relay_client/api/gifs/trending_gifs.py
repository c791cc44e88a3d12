from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_trending_gifs import AnswerTrendingGifs
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["offset"] = offset

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/gifs/trending",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerTrendingGifs | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerTrendingGifs.from_dict(response.json())

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
) -> Response[AnswerTrendingGifs | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> Response[AnswerTrendingGifs | ErrorBody]:
    """Trending GIFs (live)

     The provider's body nested as ``data.data`` and ``data.pagination``; offset-paged.

    There is no ``hasMore``: a next page exists while ``offset + count < total_count``.
    The upstream wants a signed-in account even here: one of the organization's is used.

    Permission: `api_gifs_trending`.

    Args:
        limit (int | Unset): Page size, 1 to 50. Default: 20.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerTrendingGifs | ErrorBody]
    """

    kwargs = _get_kwargs(
        limit=limit,
        offset=offset,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> AnswerTrendingGifs | ErrorBody | None:
    """Trending GIFs (live)

     The provider's body nested as ``data.data`` and ``data.pagination``; offset-paged.

    There is no ``hasMore``: a next page exists while ``offset + count < total_count``.
    The upstream wants a signed-in account even here: one of the organization's is used.

    Permission: `api_gifs_trending`.

    Args:
        limit (int | Unset): Page size, 1 to 50. Default: 20.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerTrendingGifs | ErrorBody
    """

    return sync_detailed(
        client=client,
        limit=limit,
        offset=offset,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> Response[AnswerTrendingGifs | ErrorBody]:
    """Trending GIFs (live)

     The provider's body nested as ``data.data`` and ``data.pagination``; offset-paged.

    There is no ``hasMore``: a next page exists while ``offset + count < total_count``.
    The upstream wants a signed-in account even here: one of the organization's is used.

    Permission: `api_gifs_trending`.

    Args:
        limit (int | Unset): Page size, 1 to 50. Default: 20.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerTrendingGifs | ErrorBody]
    """

    kwargs = _get_kwargs(
        limit=limit,
        offset=offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    offset: int | Unset = 0,
) -> AnswerTrendingGifs | ErrorBody | None:
    """Trending GIFs (live)

     The provider's body nested as ``data.data`` and ``data.pagination``; offset-paged.

    There is no ``hasMore``: a next page exists while ``offset + count < total_count``.
    The upstream wants a signed-in account even here: one of the organization's is used.

    Permission: `api_gifs_trending`.

    Args:
        limit (int | Unset): Page size, 1 to 50. Default: 20.
        offset (int | Unset): Rows to skip (offset paging). Default: 0.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerTrendingGifs | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            offset=offset,
        )
    ).parsed
