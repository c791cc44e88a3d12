"""The posts_counters rollup (migration 0011, kept by the writers: app/store/upkeep.py) equals
the full aggregate the feed's counters block used to compute, after every kind of write and
after ``relay db recount`` of changes by hand, and the route reads it."""

from __future__ import annotations

import threading

import psycopg
from alembic.script import ScriptDirectory
from psycopg.types.json import Jsonb

from app.store.recount import recount_accounts
from tests.fixtures.store import write_page
from tests.fixtures.threads import run_in_threads

REVISION = "0011_posts_counters"

# The aggregate counters() ran over every stored post before the rollup: the reference.
_AGGREGATE = """
SELECT p.account_id,
    count(*) FILTER (WHERE visible),
    count(*) FILTER (WHERE coalesce(is_archived, false)),
    count(*) FILTER (WHERE coalesce(is_private_archived, false)),
    coalesce(sum(media.photos) FILTER (WHERE visible), 0),
    coalesce(sum(media.videos) FILTER (WHERE visible), 0),
    coalesce(sum(media.audios) FILTER (WHERE visible), 0)
FROM (
    SELECT account_id, payload, is_archived, is_private_archived,
           NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false) AS visible
    FROM posts
) AS p
CROSS JOIN LATERAL (
    SELECT count(*) FILTER (WHERE item->>'type' = 'photo') AS photos,
           count(*) FILTER (WHERE item->>'type' = 'video') AS videos,
           count(*) FILTER (WHERE item->>'type' = 'audio') AS audios
    FROM jsonb_array_elements(coalesce(p.payload->'media', '[]'::jsonb)) AS item
) AS media
GROUP BY p.account_id ORDER BY 1
"""

# Accounts whose posts were all deleted keep a row of zeros: as good as no row.
_ROLLUP = """
SELECT account_id, posts, archived, private_archived, photos, videos, audios
FROM posts_counters
WHERE (posts, archived, private_archived, photos, videos, audios) <> (0, 0, 0, 0, 0, 0)
ORDER BY 1
"""


def _post(i: int, media: str = "pva", *, archived: bool | None = False, private: bool | None = False) -> dict:
    """A post with one media item per letter of ``media`` (p photo, v video, a audio, g gif)."""
    kinds = {"p": "photo", "v": "video", "a": "audio", "g": "gif"}
    post = {
        "id": 1000 + i, "postedAt": f"2025-05-01T10:00:{i % 60:02d}+00:00",
        "postedAtPrecise": f"{1746093600 + i}.000000", "favoritesCount": i, "tipsAmount": "$1.00",
        "isPinned": False, "labelIds": [], "mediaCount": len(media), "rawText": f"post {i}",
        "media": [{"id": i * 10 + k, "type": kinds[c]} for k, c in enumerate(media)],
    }
    # None: the upstream left the flag out (counts as not archived).
    if archived is not None:
        post["isArchived"] = archived
    if private is not None:
        post["isPrivateArchived"] = private
    return post


def _assert_rollup_is_the_aggregate(conn: psycopg.Connection) -> None:
    assert conn.execute(_ROLLUP).fetchall() == conn.execute(_AGGREGATE).fetchall()


def test_the_rollup_follows_the_writers_and_a_recount_after_changes_by_hand(db):
    write_page(db, "posts", 1, [_post(i, "pva"[: i % 4] + "g") for i in range(10)])
    write_page(db, "posts", 1, [_post(10, "pp", archived=True), _post(11, "vv", private=True),
                                _post(12, "aa", archived=True, private=True), _post(13, "", archived=None, private=None)])
    write_page(db, "posts", 2, [_post(i, "ppv") for i in range(5)])
    _assert_rollup_is_the_aggregate(db)
    assert db.execute("SELECT posts, archived, private_archived FROM posts_counters WHERE account_id = 1").fetchone() \
        == (11, 2, 2)

    # Upserts that archive, unarchive, move between archives and change media.
    write_page(db, "posts", 1, [_post(0, "", archived=True), _post(10, "pp"), _post(11, "vv", archived=True),
                                _post(3, "ppppvvva")])
    _assert_rollup_is_the_aggregate(db)
    # Changes by hand (a manual fix of the flags and the payload, deletes) bypass the
    # writers: the recount rebuilds the accounts' rollups from their rows.
    db.execute("UPDATE posts SET is_private_archived = true WHERE account_id = 1 AND id IN (1001, 1002)")
    db.execute("""UPDATE posts SET payload = jsonb_set(payload, '{media}', '[{"type": "video"}]')
                  WHERE account_id = 2 AND id = 1004""")
    db.execute("DELETE FROM posts WHERE account_id = 1 AND id IN (1003, 1010, 1012)")
    assert db.execute(_ROLLUP).fetchall() != db.execute(_AGGREGATE).fetchall()
    assert recount_accounts(db, [1, 2]) == 2
    _assert_rollup_is_the_aggregate(db)
    db.execute("DELETE FROM posts WHERE account_id = 2")
    recount_accounts(db, [2])
    _assert_rollup_is_the_aggregate(db)
    assert db.execute("SELECT count(*) FROM posts_counters WHERE account_id = 2").fetchone()[0] == 0


def test_an_update_that_changes_no_count_does_not_touch_the_rollup_row(db):
    write_page(db, "posts", 1, [_post(i) for i in range(3)])
    before = db.execute("SELECT xmin::text FROM posts_counters WHERE account_id = 1").fetchone()
    write_page(db, "posts", 1, [{**_post(i), "favoritesCount": 50 + i} for i in range(3)])
    assert db.execute("SELECT count(*) FROM posts WHERE favorites_count >= 50").fetchone()[0] == 3
    assert db.execute("SELECT xmin::text FROM posts_counters WHERE account_id = 1").fetchone() == before
    _assert_rollup_is_the_aggregate(db)


def test_concurrent_writers_of_one_account_lose_no_delta(db, database_url):
    """Writers in their own transactions, all on account 1's rollup row at once."""
    barrier = threading.Barrier(4)

    def writer(k: int) -> None:
        with psycopg.connect(database_url) as conn:
            barrier.wait()
            for page in range(5):
                base = k * 1000 + page * 20
                write_page(conn, "posts", 1, [_post(base + i, "pv", archived=i % 3 == 0) for i in range(20)])
                conn.commit()
            # Every writer then archives, unarchives and changes the media of posts of all four.
            write_page(conn, "posts", 1, [_post(j * 1000 + i, "a" * k, archived=(i + k) % 2 == 0)
                                          for j in range(4) for i in range(0, 100, 3)])
            conn.commit()

    assert run_in_threads(writer, 4) == []
    _assert_rollup_is_the_aggregate(db)
    assert db.execute("SELECT count(*) FROM posts").fetchone()[0] > 0


def test_the_route_answers_zeros_for_an_account_without_posts(api_caller):
    api_caller.store.cover("posts")
    counters = api_caller.ok("/v1/{account}/posts")["data"]["counters"]
    assert counters == {"audiosCount": 0, "photosCount": 0, "videosCount": 0, "mediasCount": 0,
                        "postsCount": 0, "streamsCount": None, "archivedPostsCount": 0,
                        "privateArchivedPostsCount": 0}


def test_the_route_reads_the_rollup(api_caller):
    write_page(api_caller.db, "posts", api_caller.account_id,
               [_post(0, "ppva"), _post(1, "vg"), _post(2, "aa", archived=True), _post(3, "p", private=True)])
    api_caller.store.cover("posts")
    counters = api_caller.ok("/v1/{account}/posts", limit=1)["data"]["counters"]
    assert counters == {"audiosCount": 1, "photosCount": 2, "videosCount": 2, "mediasCount": 5,
                        "postsCount": 2, "streamsCount": None, "archivedPostsCount": 1,
                        "privateArchivedPostsCount": 1}


def _insert_as_of_then(conn: psycopg.Connection, account_id: int, posts: list[dict]) -> None:
    """Posts stored as before the rollup existed (today's writer keeps the rollup)."""
    conn.cursor().executemany(
        "INSERT INTO posts (account_id, id, posted_at, posted_at_precise, is_archived, is_private_archived, payload) "
        "VALUES (%s, %s, now(), %s, %s, %s, %s)",
        [(account_id, p["id"], p["postedAtPrecise"], p.get("isArchived"), p.get("isPrivateArchived"), Jsonb(p))
         for p in posts])


def test_the_migration_fills_the_rollup_from_existing_posts_and_downgrade_drops_it(empty_database):
    from app.db.migrate import alembic_config, downgrade, upgrade

    with empty_database() as url:
        before = ScriptDirectory.from_config(alembic_config(url)).get_revision(REVISION).down_revision
        upgrade(url, before)
        with psycopg.connect(url, autocommit=True) as conn:
            _insert_as_of_then(conn, 1, [_post(i, "pva"[: i % 4], archived=i % 5 == 0, private=i % 7 == 0)
                                         for i in range(40)])
            _insert_as_of_then(conn, 2, [_post(i, "vv") for i in range(3)])
            # Many accounts at once, with media of every kind, and one with no media key at all.
            conn.execute("""INSERT INTO posts (account_id, id, posted_at, posted_at_precise, is_archived, payload)
                            SELECT 100 + g % 50, g, now(), g, g % 4 = 0,
                                   jsonb_build_object('media', jsonb_build_array(
                                       jsonb_build_object('type', 'photo'),
                                       jsonb_build_object('type', (ARRAY['video', 'audio', 'gif'])[1 + g % 3])))
                            FROM generate_series(1, 2000) g""")
            conn.execute("INSERT INTO posts (account_id, id, posted_at, posted_at_precise, payload) "
                         "VALUES (3, 1, now(), 1, '{}')")
        upgrade(url, REVISION)
        with psycopg.connect(url, autocommit=True) as conn:
            assert len(conn.execute(_ROLLUP).fetchall()) == 53
            _assert_rollup_is_the_aggregate(conn)
        upgrade(url)  # the writers keep it from the head on
        with psycopg.connect(url, autocommit=True) as conn:
            write_page(conn, "posts", 2, [_post(0, "", archived=True), _post(9, "ppp")])
            _assert_rollup_is_the_aggregate(conn)
        downgrade(url, before)
        with psycopg.connect(url, autocommit=True) as conn:
            tables = conn.execute("SELECT count(*) FROM pg_tables WHERE tablename = 'posts_counters'")
            assert tables.fetchone()[0] == 0
            functions = conn.execute("SELECT count(*) FROM pg_proc WHERE proname LIKE 'posts\\_counters\\_%'")
            assert functions.fetchone()[0] == 0
            conn.execute(  # no trigger left behind
                "INSERT INTO posts (account_id, id, posted_at, posted_at_precise, payload) VALUES (2, 20, now(), 1, '{}')")
