"""The typed sync state (sync/cursor_state.py) reads and writes the JSON the dict-based code
stored: ``recorded/states.json`` holds ``sync_state.cursor`` values that code wrote during a
sync of every resource against the sandbox (backfill, head checks, lookback re-reads,
reconcile; mid-pass and after), one for each shape seen."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from sync.cursor_state import CursorState, PartitionState, PassState, decode_cursor, encode_cursor
from sync.cursors import KeysetPosition
from sync.resources import REGISTRY

STATES = json.loads((Path(__file__).parent / "recorded" / "states.json").read_text())


@pytest.mark.parametrize("stored", STATES, ids=[f"{s['resource']} {i}" for i, s in enumerate(STATES)])
def test_a_state_the_old_code_stored_decodes_and_encodes_to_the_same_json(stored):
    position_type = REGISTRY[stored["resource"]].cursor.position_type
    text = None if stored["cursor"] is None else json.dumps(stored["cursor"])
    state = decode_cursor(text, position_type)
    # A pair never synced (NULL) starts as the old code started: no partitions yet.
    assert json.loads(encode_cursor(state)) == (stored["cursor"] or {"partitions": {}})
    for part in state.partitions.values():
        for kind in part.pending():
            position = part.pass_of(kind).position
            assert position is None or isinstance(position, position_type)


def test_a_pass_not_yet_run_stays_absent_and_a_completed_one_stays_null():
    state = CursorState().with_partitions(["a", "b"])
    state = state.with_partition("a", state.partitions["a"].with_pass("backfill", None, (5, 9)))
    state = msgspec.structs.replace(state, lookback_at=9)
    assert json.loads(encode_cursor(state)) == {
        "partitions": {"a": {"coverage": [5, 9], "backfill": None}, "b": {"coverage": None}}, "lookback_at": 9}
    assert state.head_marks is None and state.last_lookback == 9


def test_new_partitions_join_uncovered_and_stored_ones_are_kept():
    stored = CursorState(partitions={"a": PartitionState((1, 2), incremental=PassState(1, 2, KeysetPosition(2, "7")))})
    state = stored.with_partitions(["a", "b"])
    assert state.partitions == {**stored.partitions, "b": PartitionState()}
    assert stored.with_partitions(["a"]) is stored


def test_a_position_of_another_shape_is_refused_not_guessed():
    stored = {"partitions": {"a": {"coverage": None, "incremental": {"lo": 1, "hi": 2, "position": {"offset": 3}}}}}
    with pytest.raises(msgspec.ValidationError, match="marker"):
        decode_cursor(json.dumps(stored), KeysetPosition)
