"""Statements over chosen (account, resource) pairs: the pairs as ``"account:resource"`` keys,
and the condition that picks their rows.

The condition names the pairs' accounts as well as their keys. A row's key is an expression
that neither an index nor Citus can use; its account is a column both can: on Citus
(docs/scaling.md) the statement then runs on those accounts' shards only, and on one
PostgreSQL it reads their rows through the ``(account_id, resource)`` key.
"""

from __future__ import annotations

from collections.abc import Iterable


def pair_key(account_id: int, resource: str) -> str:
    return f"{account_id}:{resource}"


def pair_keys(pairs: Iterable[tuple[int, str]]) -> list[str]:
    return [pair_key(account_id, resource) for account_id, resource in pairs]


def among_pairs(prefix: str = "") -> str:
    """The condition (``prefix``: the table's alias and a dot): the row is one of the pairs
    in ``%(keys)s``; its parameters come from :func:`pairs_params`."""
    return (f"{prefix}account_id = ANY(%(accounts)s::bigint[]) "
            f"AND {prefix}account_id::text || ':' || {prefix}resource = ANY(%(keys)s::text[])")


def pairs_params(keys: list[str] | None) -> dict[str, list | None]:
    """``keys`` and their accounts, the parameters of :func:`among_pairs` (None: no pairs chosen)."""
    accounts = None if keys is None else sorted({int(key.partition(":")[0]) for key in keys})
    return {"keys": keys, "accounts": accounts}
