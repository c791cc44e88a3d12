"""Pure tests of the timeline arithmetic and the earnings generator (no server)."""

from collections import Counter

from sandbox.config import SandboxConfig
from sandbox.core.timeline import Cursor, Timeline, keyset_page
from sandbox.state import SandboxState


def test_first_at_or_after_matches_a_scan_on_a_dense_timeline():
    tl = Timeline(start=1000, span=60, n=500, id_base=10, stride=3, lane=1)
    times = [tl.time_of(i) for i in range(1000)]
    for t in range(990, 1119):
        assert tl.first_at_or_after(t) == next(i for i, ti in enumerate(times) if ti >= t)


def test_keyset_cursor_pages_every_row_once_across_ties():
    timelines = [Timeline(0, 10, 97, 1000, 4, lane) for lane in range(3)]
    for descending in (True, False):
        seen, cursor = [], None
        while True:
            page = keyset_page(timelines, 2, 8, 7, descending, cursor)
            keys = [(timelines[p].time_of(i), timelines[p].id_of(i)) for p, i in page.rows]
            seen += keys
            if not page.has_more:
                break
            cursor = Cursor(*keys[-1])
        expected = sorted(
            ((tl.time_of(i), tl.id_of(i)) for tl in timelines for i in tl.window(2, 8)), reverse=descending
        )
        assert seen == expected


def test_page_5000_of_a_million_rows_generates_as_many_rows_as_page_1():
    state = SandboxState(SandboxConfig(epoch=1767225600, clock_start=1767225600, clock_frozen=True))
    state.accounts.configure(1, {"earnings": 1_000_000})
    ledger = state.world(1).earnings
    lo, hi = state.history_start(1), state.now_s()
    first = keyset_page(ledger.timelines, lo, hi, 200)
    # Cursor 5,000 pages deep: after the 1,000,000th newest row's position.
    deep_time = lo + (hi - lo) // 1000
    deep = keyset_page(ledger.timelines, lo, hi, 200, True, Cursor(deep_time, None))
    assert len(first.rows) == len(deep.rows) == 200
    assert deep.keys_examined <= first.keys_examined * 1.1


def test_rows_of_each_type_are_only_found_by_their_type():
    state = SandboxState(SandboxConfig(epoch=1767225600))
    ledger = state.world(3).earnings
    lanes = Counter(ledger.locate(int(ledger.row(k, 5, 0)["id"]))[0] for k in range(9))
    assert sorted(lanes) == list(range(9))
