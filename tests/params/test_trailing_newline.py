"""Every pattern in the app matches the whole value: a trailing newline is refused (or, in
free text, kept as part of the text), never let through by ``$`` (issue 25, item 7).

Litestar checks a declared ``pattern`` with ``re.search``, where ``$`` also matches before a
final newline: ``posts?label=archived%0A`` passed the pattern and ``int()`` then failed (a
500). The patterns come from the app itself (its OpenAPI schema and its modules' compiled
regexes), so a new one is covered without editing this file.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from urllib.parse import quote

import pytest
from hypothesis import Phase, find, settings
from hypothesis import strategies as st
from litestar.exceptions import ValidationException

import app
import sync
from app.db.prepared import positional
from app.events.types import Cursor
from app.events.webhooks import addresses
from app.gate import keys, middleware, shortcut
from app.paging import _encoded
from app.params import TEXT_PATTERN, parse_timestamp
from app.request_id import choose_request_id
from tests.fixtures.api import error_of

#: Path parameters filled in with a valid value when another one of the path is under test.
PATH_VALUES = {"link_id": "1", "resource": "earnings", "type": "tip"}


def _schema_patterns(client) -> list[tuple[str, str, str, str, str]]:
    """(method, path, name, in, pattern) of every parameter whose schema has a pattern."""
    found = []
    for path, item in client.get("/docs/openapi.json").json()["paths"].items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                schema = parameter["schema"]
                for option in [schema, *schema.get("oneOf", [])]:
                    if "pattern" in option:
                        found.append((method, path, parameter["name"], parameter["in"], option["pattern"]))
    return found


@functools.cache
def _valid(pattern: str) -> str:
    """A non-empty value the whole pattern matches (the same one every run)."""
    quick = settings(database=None, derandomize=True, phases=[Phase.generate], max_examples=100)
    return find(st.from_regex(pattern, fullmatch=True), lambda value: value != "", settings=quick)


@pytest.fixture(scope="module")
def schema_patterns() -> list:
    return []


@pytest.fixture
def declared(api_client, schema_patterns) -> list:
    if not schema_patterns:
        schema_patterns.extend(_schema_patterns(api_client))
    return schema_patterns


def test_every_declared_pattern_refuses_what_it_would_not_match_whole(declared):
    """What Litestar's ``re.search`` lets through is what ``fullmatch`` accepts, for a valid
    value, the value with a trailing newline, and a lone newline."""
    assert {name for _, _, name, _, _ in declared} >= {
        "start_date", "date_end", "label", "exclude_label", "before_publish_time", "marker_id", "query", "after",
        "type", "resource",
    }
    for method, path, name, _, pattern in declared:
        value = _valid(pattern)
        for candidate in (value, value + "\n", "\n", value + "\n" + value):
            assert bool(re.search(pattern, candidate)) == bool(re.fullmatch(pattern, candidate)), (path, name, candidate)
        if pattern != TEXT_PATTERN:  # free text may hold a newline; nothing else may
            assert not re.search(pattern, value + "\n"), (method, path, name, pattern)


def test_each_declared_pattern_with_a_trailing_newline_is_a_400_naming_the_parameter(api_caller, declared):
    for method, path, name, where, pattern in declared:
        if pattern == TEXT_PATTERN or method != "get":
            continue
        bad = _valid(pattern) + "\n"
        values = {**PATH_VALUES, "account_id": str(api_caller.account_id)}
        if where == "path":
            values[name] = bad
        url = path.format(**{key: quote(value, safe="") for key, value in values.items()})
        query = "" if where == "path" else f"{name}={quote(bad, safe='')}"
        message = error_of(api_caller.get(url, query), 400)
        assert f"invalid {where} parameter '{name}'" in message, (path, name, message)


def test_an_archived_label_with_a_trailing_newline_is_a_400_not_a_500(api_caller):
    """The issue's case: the pattern's ``$`` passed it, then ``int('archived\\n')`` raised."""
    for name in ("label", "exclude_label"):
        message = error_of(api_caller.get("/v1/{account}/posts", f"{name}=archived%0A"), 400)
        assert message.startswith(f"invalid query parameter '{name}': must be a numeric label id")
    assert api_caller.get("/v1/{account}/posts", "label=archived").status_code == 200


@pytest.mark.parametrize("written", ["{}%0A", "%20{}", "+{}", "{}%D9%A3"])
def test_an_integer_path_parameter_in_other_than_ascii_digits_is_a_400(api_caller, written):
    """Litestar reads ``{account_id:int}`` with ``int()``, which takes a trailing newline, a
    space, a sign and other scripts' digits (``%D9%A3``, Arabic-Indic three)."""
    account = written.format(api_caller.account_id)
    if written == "{}%D9%A3":  # int() reads it as the digit 3: the account must exist
        account = "%D9%A3"
    response = api_caller.client.get(f"/v1/{account}/earnings", headers={"Authorization": f"Bearer {api_caller.key}"})
    if written != "{}%D9%A3":
        assert error_of(response, 400) == "invalid path parameter 'account_id': must be an integer in ASCII digits"
    else:
        assert response.status_code in (400, 404), response.text  # account 3 is not this organization's
    message = error_of(api_caller.get("/v1/{account}/tracking-links/" + written.format(1) + "/stats"), 400)
    assert message == "invalid path parameter 'link_id': must be an integer in ASCII digits"


# --- the regexes the app's own code applies -----------------------------------------------------


def _module_regexes() -> set[str]:
    """Every compiled regex a module of ``app`` or ``sync`` holds, each named once (by the
    first of the qualified names it is held under: one imported elsewhere is one regex)."""
    names: dict[int, list[str]] = {}
    for package in (app, sync):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            for attribute, value in vars(module).items():
                if isinstance(value, re.Pattern):
                    names.setdefault(id(value), []).append(f"{info.name}.{attribute}")
    return {min(held) for held in names.values()}


def _refuses_a_newline_in_a_timestamp() -> bool:
    try:
        parse_timestamp("start_date", "2024-01-01\n")
    except ValidationException:
        return True
    return False


VALID_KEY = "crk_live_" + "A" * 43
#: Each regex, and what its use does with a trailing newline (True: the right thing).
REGEX_USES = {
    "app.params._TIMESTAMP": _refuses_a_newline_in_a_timestamp,
    "app.gate.keys.KEY_PATTERN": lambda: keys.KEY_PATTERN.fullmatch(VALID_KEY + "\n") is None
    and keys.KEY_PATTERN.fullmatch(VALID_KEY) is not None,
    "app.gate.middleware._KEY_BYTES": lambda: middleware._KEY_BYTES.fullmatch(f"Bearer {VALID_KEY}\n".encode(), 7) is None,
    "app.request_id._SANE": lambda: choose_request_id(b"abc\n") != "abc\n" and choose_request_id(b"abc") == "abc",
    "app.events.types._CURSOR": lambda: Cursor.parse("1.2\n") is None and Cursor.parse("1.2") == Cursor(1, 2),
    "app.paging._UNRESERVED": lambda: _encoded("abc\n") == "abc%0A" and _encoded("abc") == "abc",
    "app.events.webhooks.addresses._HOST": lambda: addresses._HOST.fullmatch("example.com\n") is None
    and addresses._HOST.fullmatch("example.com") is not None,
    "app.gate.shortcut._DIGITS": lambda: shortcut._DIGITS.fullmatch(b"5\n") is None
    and shortcut._DIGITS.fullmatch(b"5") is not None,
    # Not a validator: it finds the placeholders of our own statements, a newline after one included.
    "app.db.prepared._PLACEHOLDER": lambda: positional("SELECT %(a)s\n") == (b"SELECT $1\n", ("a",)),
}


def test_every_regex_of_the_app_is_listed_with_its_trailing_newline_check():
    assert _module_regexes() == set(REGEX_USES), "a new regex: add it to REGEX_USES with its check"


@pytest.mark.parametrize("name", sorted(REGEX_USES))
def test_each_regex_of_the_app_handles_a_trailing_newline(name):
    assert REGEX_USES[name]()
