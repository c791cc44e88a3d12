from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.answer_earnings_overview import AnswerEarningsOverview
from ...models.earnings_overview_by_type_1 import EarningsOverviewByType1
from ...models.earnings_overview_by_type_2_type_1 import EarningsOverviewByType2Type1
from ...models.earnings_overview_by_type_3_type_1 import EarningsOverviewByType3Type1
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    account_id: int,
    *,
    start_date: None | str | Unset = UNSET,
    end_date: None | str | Unset = UNSET,
    by: EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1 | None | Unset = UNSET,
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

    json_by: None | str | Unset
    if isinstance(by, Unset):
        json_by = UNSET
    elif isinstance(by, EarningsOverviewByType1):
        json_by = by.value
    elif isinstance(by, EarningsOverviewByType2Type1):
        json_by = by.value
    elif isinstance(by, EarningsOverviewByType3Type1):
        json_by = by.value
    else:
        json_by = by
    params["by"] = json_by

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/{account_id}/earnings/overview".format(
            account_id=quote(str(account_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AnswerEarningsOverview | ErrorBody | None:
    if response.status_code == 200:
        response_200 = AnswerEarningsOverview.from_dict(response.json())

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
) -> Response[AnswerEarningsOverview | ErrorBody]:
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
    by: EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1 | None | Unset = UNSET,
) -> Response[AnswerEarningsOverview | ErrorBody]:
    """Earnings overview (live)

     Totals, deltas and charts per section; ``by`` narrows to one section (sent as given).

    Rules: ``end_date`` must not be before ``start_date``.

    Permission: `api_earnings_read_overview`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        start_date (None | str | Unset): Earliest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-
            MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: two years ago. From start_date to end_date: at most
            9,132 days on this route (the default of the operator's RELAY_CHART_WINDOW_MAX_DAYS);
            longer is a 400.
        end_date (None | str | Unset): Latest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-MM-
            DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: the end of today. From start_date to end_date: at most
            9,132 days on this route (the default of the operator's RELAY_CHART_WINDOW_MAX_DAYS);
            longer is a 400.
        by (EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1
            | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerEarningsOverview | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        start_date=start_date,
        end_date=end_date,
        by=by,
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
    by: EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1 | None | Unset = UNSET,
) -> AnswerEarningsOverview | ErrorBody | None:
    """Earnings overview (live)

     Totals, deltas and charts per section; ``by`` narrows to one section (sent as given).

    Rules: ``end_date`` must not be before ``start_date``.

    Permission: `api_earnings_read_overview`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        start_date (None | str | Unset): Earliest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-
            MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: two years ago. From start_date to end_date: at most
            9,132 days on this route (the default of the operator's RELAY_CHART_WINDOW_MAX_DAYS);
            longer is a 400.
        end_date (None | str | Unset): Latest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-MM-
            DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: the end of today. From start_date to end_date: at most
            9,132 days on this route (the default of the operator's RELAY_CHART_WINDOW_MAX_DAYS);
            longer is a 400.
        by (EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1
            | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerEarningsOverview | ErrorBody
    """

    return sync_detailed(
        account_id=account_id,
        client=client,
        start_date=start_date,
        end_date=end_date,
        by=by,
    ).parsed


async def asyncio_detailed(
    account_id: int,
    *,
    client: AuthenticatedClient,
    start_date: None | str | Unset = UNSET,
    end_date: None | str | Unset = UNSET,
    by: EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1 | None | Unset = UNSET,
) -> Response[AnswerEarningsOverview | ErrorBody]:
    """Earnings overview (live)

     Totals, deltas and charts per section; ``by`` narrows to one section (sent as given).

    Rules: ``end_date`` must not be before ``start_date``.

    Permission: `api_earnings_read_overview`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        start_date (None | str | Unset): Earliest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-
            MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: two years ago. From start_date to end_date: at most
            9,132 days on this route (the default of the operator's RELAY_CHART_WINDOW_MAX_DAYS);
            longer is a 400.
        end_date (None | str | Unset): Latest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-MM-
            DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: the end of today. From start_date to end_date: at most
            9,132 days on this route (the default of the operator's RELAY_CHART_WINDOW_MAX_DAYS);
            longer is a 400.
        by (EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1
            | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AnswerEarningsOverview | ErrorBody]
    """

    kwargs = _get_kwargs(
        account_id=account_id,
        start_date=start_date,
        end_date=end_date,
        by=by,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    account_id: int,
    *,
    client: AuthenticatedClient,
    start_date: None | str | Unset = UNSET,
    end_date: None | str | Unset = UNSET,
    by: EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1 | None | Unset = UNSET,
) -> AnswerEarningsOverview | ErrorBody | None:
    """Earnings overview (live)

     Totals, deltas and charts per section; ``by`` narrows to one section (sent as given).

    Rules: ``end_date`` must not be before ``start_date``.

    Permission: `api_earnings_read_overview`.

    Args:
        account_id (int): The connected account (the upstream's numeric account id).
        start_date (None | str | Unset): Earliest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-
            MM-DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: two years ago. From start_date to end_date: at most
            9,132 days on this route (the default of the operator's RELAY_CHART_WINDOW_MAX_DAYS);
            longer is a 400.
        end_date (None | str | Unset): Latest moment (UTC). must be YYYY-MM-DD HH:MM:SS, YYYY-MM-
            DD or ISO 8601 (e.g. 2024-05-01T12:00:00Z); must lie between 1970-01-01 00:00:00 and
            9999-12-30 23:59:59 UTC. Default: the end of today. From start_date to end_date: at most
            9,132 days on this route (the default of the operator's RELAY_CHART_WINDOW_MAX_DAYS);
            longer is a 400.
        by (EarningsOverviewByType1 | EarningsOverviewByType2Type1 | EarningsOverviewByType3Type1
            | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AnswerEarningsOverview | ErrorBody
    """

    return (
        await asyncio_detailed(
            account_id=account_id,
            client=client,
            start_date=start_date,
            end_date=end_date,
            by=by,
        )
    ).parsed
