-- The statement triggers of the synced tables and their functions as migration 0022 found
-- them (frozen: pg_get_functiondef and pg_get_triggerdef of a database at 0021), which its
-- downgrade restores.
CREATE OR REPLACE FUNCTION public.earnings_daily_added()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO earnings_daily AS d (account_id, day, type, tips_source, rows, net, gross)
    SELECT account_id, day, type, tips_source, sum(rows), sum(net), sum(gross)
    FROM (
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, type,
           coalesce(tips_source, '') AS tips_source,
           1 * count(*) AS rows, 1 * sum(net) AS net, 1 * sum(amount) AS gross
    FROM new_rows GROUP BY 1, 2, 3, 4
) AS changes
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, day, type, tips_source) DO UPDATE
    SET rows = d.rows + EXCLUDED.rows, net = d.net + EXCLUDED.net, gross = d.gross + EXCLUDED.gross;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.earnings_daily_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO earnings_daily AS d (account_id, day, type, tips_source, rows, net, gross)
    SELECT account_id, day, type, tips_source, sum(rows), sum(net), sum(gross)
    FROM (
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, type,
           coalesce(tips_source, '') AS tips_source,
           -1 * count(*) AS rows, -1 * sum(net) AS net, -1 * sum(amount) AS gross
    FROM old_rows GROUP BY 1, 2, 3, 4
 UNION ALL 
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, type,
           coalesce(tips_source, '') AS tips_source,
           1 * count(*) AS rows, 1 * sum(net) AS net, 1 * sum(amount) AS gross
    FROM new_rows GROUP BY 1, 2, 3, 4
) AS changes
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, day, type, tips_source) DO UPDATE
    SET rows = d.rows + EXCLUDED.rows, net = d.net + EXCLUDED.net, gross = d.gross + EXCLUDED.gross;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.earnings_daily_removed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO earnings_daily AS d (account_id, day, type, tips_source, rows, net, gross)
    SELECT account_id, day, type, tips_source, sum(rows), sum(net), sum(gross)
    FROM (
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, type,
           coalesce(tips_source, '') AS tips_source,
           -1 * count(*) AS rows, -1 * sum(net) AS net, -1 * sum(amount) AS gross
    FROM old_rows GROUP BY 1, 2, 3, 4
) AS changes
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (account_id, day, type, tips_source) DO UPDATE
    SET rows = d.rows + EXCLUDED.rows, net = d.net + EXCLUDED.net, gross = d.gross + EXCLUDED.gross;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.earnings_daily_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
DELETE FROM earnings_daily;
RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.events_chargebacks_created()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'chargebacks.created', a.organization_id, n.account_id, n.payload
    FROM new_rows n
    JOIN accounts a ON a.id = n.account_id
    JOIN sync_state s ON s.account_id = n.account_id AND s.resource = 'chargebacks'
    LEFT JOIN sync_runs r ON r.account_id = n.account_id AND r.id = n.sync_run_id
    WHERE n.created_at >= s.coverage_start
      AND r.kind IS DISTINCT FROM 'backfill'
      AND EXISTS (SELECT 1 FROM sync_runs i WHERE i.account_id = n.account_id
              AND i.resource = 'chargebacks' AND i.kind = 'incremental' AND i.status = 'succeeded')
    ORDER BY n.created_at, n.id;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.events_earnings_created()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'earnings.created', a.organization_id, n.account_id, n.payload
    FROM new_rows n
    JOIN accounts a ON a.id = n.account_id
    JOIN sync_state s ON s.account_id = n.account_id AND s.resource = 'earnings'
    LEFT JOIN sync_runs r ON r.account_id = n.account_id AND r.id = n.sync_run_id
    WHERE n.created_at >= s.coverage_start
      AND r.kind IS DISTINCT FROM 'backfill'
      AND EXISTS (SELECT 1 FROM sync_runs i WHERE i.account_id = n.account_id
              AND i.resource = 'earnings' AND i.kind = 'incremental' AND i.status = 'succeeded')
    ORDER BY n.created_at, n.id;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.events_earnings_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'earnings.updated', a.organization_id, n.account_id, n.payload
    FROM new_rows n
    JOIN old_rows o USING (account_id, id)
    JOIN accounts a ON a.id = n.account_id
    WHERE (o.status, o.amount, o.net, o.fee, o.vat_amount, o.tax_amount, o.media_tax_amount) IS DISTINCT FROM (n.status, n.amount, n.net, n.fee, n.vat_amount, n.tax_amount, n.media_tax_amount)
      AND EXISTS (SELECT 1 FROM sync_runs i WHERE i.account_id = n.account_id
              AND i.resource = 'earnings' AND i.kind = 'incremental' AND i.status = 'succeeded')
    ORDER BY n.created_at, n.id;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.events_payout_requests_created()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'payout_requests.created', a.organization_id, n.account_id, n.payload
    FROM new_rows n
    JOIN accounts a ON a.id = n.account_id
    JOIN sync_state s ON s.account_id = n.account_id AND s.resource = 'payout_requests'
    LEFT JOIN sync_runs r ON r.account_id = n.account_id AND r.id = n.sync_run_id
    WHERE n.created_at >= s.coverage_start
      AND r.kind IS DISTINCT FROM 'backfill'
      AND EXISTS (SELECT 1 FROM sync_runs i WHERE i.account_id = n.account_id
              AND i.resource = 'payout_requests' AND i.kind = 'incremental' AND i.status = 'succeeded')
    ORDER BY n.created_at, n.id;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.events_payout_requests_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF current_setting('relay.renumbering', true) = 'on' THEN RETURN NULL; END IF;

    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'payout_requests.updated', a.organization_id, n.account_id, n.payload
    FROM new_rows n
    JOIN old_rows o USING (account_id, id)
    JOIN accounts a ON a.id = n.account_id
    WHERE (o.state) IS DISTINCT FROM (n.state)
      AND EXISTS (SELECT 1 FROM sync_runs i WHERE i.account_id = n.account_id
              AND i.resource = 'payout_requests' AND i.kind = 'incremental' AND i.status = 'succeeded')
    ORDER BY n.created_at, n.id;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.events_posts_created()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO events (type, organization_id, account_id, payload)
    SELECT 'posts.created', a.organization_id, n.account_id, n.payload
    FROM new_rows n
    JOIN accounts a ON a.id = n.account_id
    JOIN sync_state s ON s.account_id = n.account_id AND s.resource = 'posts'
    LEFT JOIN sync_runs r ON r.account_id = n.account_id AND r.id = n.sync_run_id
    WHERE n.posted_at >= s.coverage_start
      AND r.kind IS DISTINCT FROM 'backfill'
      AND EXISTS (SELECT 1 FROM sync_runs i WHERE i.account_id = n.account_id
              AND i.resource = 'posts' AND i.kind = 'incremental' AND i.status = 'succeeded')
    ORDER BY n.posted_at, n.id;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.ord_chargebacks_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    r record;
BEGIN
    FOR r IN
        WITH c AS (SELECT account_id, created_at, id FROM old_rows)
        SELECT lo.account_id, lo.created_at AS p_at, lo.id AS p_id, hi.created_at AS q_at, hi.id AS q_id
        FROM (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at, id) lo
        JOIN (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at DESC, id DESC) hi USING (account_id)
        ORDER BY lo.account_id
    LOOP
        PERFORM ord_chargebacks_renumber(r.account_id, r.p_at, r.p_id, r.q_at, r.q_id);
    END LOOP;
    RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.ord_chargebacks_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    r record;
BEGIN
    FOR r IN
        WITH c AS (SELECT account_id, created_at, id FROM new_rows)
        SELECT lo.account_id, lo.created_at AS p_at, lo.id AS p_id, hi.created_at AS q_at, hi.id AS q_id
        FROM (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at, id) lo
        JOIN (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at DESC, id DESC) hi USING (account_id)
        ORDER BY lo.account_id
    LOOP
        PERFORM ord_chargebacks_renumber(r.account_id, r.p_at, r.p_id, r.q_at, r.q_id);
    END LOOP;
    RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.ord_chargebacks_lock()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_advisory_xact_lock(hashtext('relay.ord.chargebacks'), hashint8(OLD.account_id));
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_advisory_xact_lock(hashtext('relay.ord.chargebacks'), hashint8(NEW.account_id));
        RETURN NEW;
    END IF;
    RETURN OLD;
END
$function$
;
CREATE OR REPLACE FUNCTION public.ord_chargebacks_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    r record;
BEGIN
    IF current_setting('relay.renumbering', true) = 'on' THEN RETURN NULL; END IF;
    FOR r IN
        WITH c AS ((SELECT account_id, created_at, id FROM new_rows EXCEPT ALL SELECT account_id, created_at, id FROM old_rows) UNION ALL (SELECT account_id, created_at, id FROM old_rows EXCEPT ALL SELECT account_id, created_at, id FROM new_rows))
        SELECT lo.account_id, lo.created_at AS p_at, lo.id AS p_id, hi.created_at AS q_at, hi.id AS q_id
        FROM (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at, id) lo
        JOIN (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at DESC, id DESC) hi USING (account_id)
        ORDER BY lo.account_id
    LOOP
        PERFORM ord_chargebacks_renumber(r.account_id, r.p_at, r.p_id, r.q_at, r.q_id);
    END LOOP;
    RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.ord_payout_requests_delete()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    r record;
BEGIN
    FOR r IN
        WITH c AS (SELECT account_id, created_at, id FROM old_rows)
        SELECT lo.account_id, lo.created_at AS p_at, lo.id AS p_id, hi.created_at AS q_at, hi.id AS q_id
        FROM (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at, id) lo
        JOIN (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at DESC, id DESC) hi USING (account_id)
        ORDER BY lo.account_id
    LOOP
        PERFORM ord_payout_requests_renumber(r.account_id, r.p_at, r.p_id, r.q_at, r.q_id);
    END LOOP;
    RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.ord_payout_requests_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    r record;
BEGIN
    FOR r IN
        WITH c AS (SELECT account_id, created_at, id FROM new_rows)
        SELECT lo.account_id, lo.created_at AS p_at, lo.id AS p_id, hi.created_at AS q_at, hi.id AS q_id
        FROM (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at, id) lo
        JOIN (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at DESC, id DESC) hi USING (account_id)
        ORDER BY lo.account_id
    LOOP
        PERFORM ord_payout_requests_renumber(r.account_id, r.p_at, r.p_id, r.q_at, r.q_id);
    END LOOP;
    RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.ord_payout_requests_lock()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        PERFORM pg_advisory_xact_lock(hashtext('relay.ord.payout_requests'), hashint8(OLD.account_id));
    END IF;
    IF TG_OP <> 'DELETE' THEN
        PERFORM pg_advisory_xact_lock(hashtext('relay.ord.payout_requests'), hashint8(NEW.account_id));
        RETURN NEW;
    END IF;
    RETURN OLD;
END
$function$
;
CREATE OR REPLACE FUNCTION public.ord_payout_requests_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
    r record;
BEGIN
    IF current_setting('relay.renumbering', true) = 'on' THEN RETURN NULL; END IF;
    FOR r IN
        WITH c AS ((SELECT account_id, created_at, id FROM new_rows EXCEPT ALL SELECT account_id, created_at, id FROM old_rows) UNION ALL (SELECT account_id, created_at, id FROM old_rows EXCEPT ALL SELECT account_id, created_at, id FROM new_rows))
        SELECT lo.account_id, lo.created_at AS p_at, lo.id AS p_id, hi.created_at AS q_at, hi.id AS q_id
        FROM (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at, id) lo
        JOIN (SELECT DISTINCT ON (account_id) account_id, created_at, id FROM c
              ORDER BY account_id, created_at DESC, id DESC) hi USING (account_id)
        ORDER BY lo.account_id
    LOOP
        PERFORM ord_payout_requests_renumber(r.account_id, r.p_at, r.p_id, r.q_at, r.q_id);
    END LOOP;
    RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.posts_counters_added()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO posts_counters AS c (account_id, posts, archived, private_archived, photos, videos, audios)
    SELECT account_id, sum(posts), sum(archived), sum(private_archived), sum(photos), sum(videos), sum(audios)
    FROM (
    SELECT r.account_id,
           1 * sum(r.visible) AS posts,
           1 * sum(r.archived) AS archived,
           1 * sum(r.private_archived) AS private_archived,
           1 * sum(m.photos) AS photos,
           1 * sum(m.videos) AS videos,
           1 * sum(m.audios) AS audios
    FROM (
        SELECT account_id, payload,
               (NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false))::int AS visible,
               coalesce(is_archived, false)::int AS archived,
               coalesce(is_private_archived, false)::int AS private_archived
        FROM new_rows
    ) AS r
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE item->>'type' = 'photo') AS photos,
               count(*) FILTER (WHERE item->>'type' = 'video') AS videos,
               count(*) FILTER (WHERE item->>'type' = 'audio') AS audios
        FROM jsonb_array_elements(
            CASE WHEN r.visible = 1 AND jsonb_typeof(r.payload->'media') = 'array'
                 THEN r.payload->'media' ELSE '[]'::jsonb END
        ) AS item
    ) AS m
    GROUP BY r.account_id
) AS changes
    GROUP BY account_id
    HAVING (sum(posts), sum(archived), sum(private_archived), sum(photos), sum(videos), sum(audios)) <> (0, 0, 0, 0, 0, 0)
    ORDER BY account_id
    ON CONFLICT (account_id) DO UPDATE
    SET posts = c.posts + EXCLUDED.posts, archived = c.archived + EXCLUDED.archived, private_archived = c.private_archived + EXCLUDED.private_archived, photos = c.photos + EXCLUDED.photos, videos = c.videos + EXCLUDED.videos, audios = c.audios + EXCLUDED.audios;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.posts_counters_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO posts_counters AS c (account_id, posts, archived, private_archived, photos, videos, audios)
    SELECT account_id, sum(posts), sum(archived), sum(private_archived), sum(photos), sum(videos), sum(audios)
    FROM (
    SELECT r.account_id,
           -1 * sum(r.visible) AS posts,
           -1 * sum(r.archived) AS archived,
           -1 * sum(r.private_archived) AS private_archived,
           -1 * sum(m.photos) AS photos,
           -1 * sum(m.videos) AS videos,
           -1 * sum(m.audios) AS audios
    FROM (
        SELECT account_id, payload,
               (NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false))::int AS visible,
               coalesce(is_archived, false)::int AS archived,
               coalesce(is_private_archived, false)::int AS private_archived
        FROM old_rows
    ) AS r
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE item->>'type' = 'photo') AS photos,
               count(*) FILTER (WHERE item->>'type' = 'video') AS videos,
               count(*) FILTER (WHERE item->>'type' = 'audio') AS audios
        FROM jsonb_array_elements(
            CASE WHEN r.visible = 1 AND jsonb_typeof(r.payload->'media') = 'array'
                 THEN r.payload->'media' ELSE '[]'::jsonb END
        ) AS item
    ) AS m
    GROUP BY r.account_id
 UNION ALL 
    SELECT r.account_id,
           1 * sum(r.visible) AS posts,
           1 * sum(r.archived) AS archived,
           1 * sum(r.private_archived) AS private_archived,
           1 * sum(m.photos) AS photos,
           1 * sum(m.videos) AS videos,
           1 * sum(m.audios) AS audios
    FROM (
        SELECT account_id, payload,
               (NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false))::int AS visible,
               coalesce(is_archived, false)::int AS archived,
               coalesce(is_private_archived, false)::int AS private_archived
        FROM new_rows
    ) AS r
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE item->>'type' = 'photo') AS photos,
               count(*) FILTER (WHERE item->>'type' = 'video') AS videos,
               count(*) FILTER (WHERE item->>'type' = 'audio') AS audios
        FROM jsonb_array_elements(
            CASE WHEN r.visible = 1 AND jsonb_typeof(r.payload->'media') = 'array'
                 THEN r.payload->'media' ELSE '[]'::jsonb END
        ) AS item
    ) AS m
    GROUP BY r.account_id
) AS changes
    GROUP BY account_id
    HAVING (sum(posts), sum(archived), sum(private_archived), sum(photos), sum(videos), sum(audios)) <> (0, 0, 0, 0, 0, 0)
    ORDER BY account_id
    ON CONFLICT (account_id) DO UPDATE
    SET posts = c.posts + EXCLUDED.posts, archived = c.archived + EXCLUDED.archived, private_archived = c.private_archived + EXCLUDED.private_archived, photos = c.photos + EXCLUDED.photos, videos = c.videos + EXCLUDED.videos, audios = c.audios + EXCLUDED.audios;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.posts_counters_removed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN

    INSERT INTO posts_counters AS c (account_id, posts, archived, private_archived, photos, videos, audios)
    SELECT account_id, sum(posts), sum(archived), sum(private_archived), sum(photos), sum(videos), sum(audios)
    FROM (
    SELECT r.account_id,
           -1 * sum(r.visible) AS posts,
           -1 * sum(r.archived) AS archived,
           -1 * sum(r.private_archived) AS private_archived,
           -1 * sum(m.photos) AS photos,
           -1 * sum(m.videos) AS videos,
           -1 * sum(m.audios) AS audios
    FROM (
        SELECT account_id, payload,
               (NOT coalesce(is_archived, false) AND NOT coalesce(is_private_archived, false))::int AS visible,
               coalesce(is_archived, false)::int AS archived,
               coalesce(is_private_archived, false)::int AS private_archived
        FROM old_rows
    ) AS r
    CROSS JOIN LATERAL (
        SELECT count(*) FILTER (WHERE item->>'type' = 'photo') AS photos,
               count(*) FILTER (WHERE item->>'type' = 'video') AS videos,
               count(*) FILTER (WHERE item->>'type' = 'audio') AS audios
        FROM jsonb_array_elements(
            CASE WHEN r.visible = 1 AND jsonb_typeof(r.payload->'media') = 'array'
                 THEN r.payload->'media' ELSE '[]'::jsonb END
        ) AS item
    ) AS m
    GROUP BY r.account_id
) AS changes
    GROUP BY account_id
    HAVING (sum(posts), sum(archived), sum(private_archived), sum(photos), sum(videos), sum(audios)) <> (0, 0, 0, 0, 0, 0)
    ORDER BY account_id
    ON CONFLICT (account_id) DO UPDATE
    SET posts = c.posts + EXCLUDED.posts, archived = c.archived + EXCLUDED.archived, private_archived = c.private_archived + EXCLUDED.private_archived, photos = c.photos + EXCLUDED.photos, videos = c.videos + EXCLUDED.videos, audios = c.audios + EXCLUDED.audios;

RETURN NULL;
END
$function$
;
CREATE OR REPLACE FUNCTION public.posts_counters_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
DELETE FROM posts_counters;
RETURN NULL;
END
$function$
;
CREATE TRIGGER events_on_chargebacks_insert AFTER INSERT ON public.chargebacks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_chargebacks_created();
CREATE TRIGGER ord_chargebacks_after_delete AFTER DELETE ON public.chargebacks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ord_chargebacks_delete();
CREATE TRIGGER ord_chargebacks_after_insert AFTER INSERT ON public.chargebacks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ord_chargebacks_insert();
CREATE TRIGGER ord_chargebacks_after_update AFTER UPDATE ON public.chargebacks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ord_chargebacks_update();
CREATE TRIGGER ord_chargebacks_lock_moved_row BEFORE UPDATE ON public.chargebacks FOR EACH ROW WHEN ((((old.account_id IS DISTINCT FROM new.account_id) OR (old.created_at IS DISTINCT FROM new.created_at)) OR (old.id IS DISTINCT FROM new.id))) EXECUTE FUNCTION ord_chargebacks_lock();
CREATE TRIGGER ord_chargebacks_lock_row BEFORE INSERT OR DELETE ON public.chargebacks FOR EACH ROW EXECUTE FUNCTION ord_chargebacks_lock();
CREATE TRIGGER earnings_daily_on_delete AFTER DELETE ON public.earnings REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION earnings_daily_removed();
CREATE TRIGGER earnings_daily_on_insert AFTER INSERT ON public.earnings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION earnings_daily_added();
CREATE TRIGGER earnings_daily_on_truncate AFTER TRUNCATE ON public.earnings FOR EACH STATEMENT EXECUTE FUNCTION earnings_daily_truncated();
CREATE TRIGGER earnings_daily_on_update AFTER UPDATE ON public.earnings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION earnings_daily_changed();
CREATE TRIGGER events_on_earnings_insert AFTER INSERT ON public.earnings REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_earnings_created();
CREATE TRIGGER events_on_earnings_update AFTER UPDATE ON public.earnings REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_earnings_updated();
CREATE TRIGGER events_on_payout_requests_insert AFTER INSERT ON public.payout_requests REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_payout_requests_created();
CREATE TRIGGER events_on_payout_requests_update AFTER UPDATE ON public.payout_requests REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_payout_requests_updated();
CREATE TRIGGER ord_payout_requests_after_delete AFTER DELETE ON public.payout_requests REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ord_payout_requests_delete();
CREATE TRIGGER ord_payout_requests_after_insert AFTER INSERT ON public.payout_requests REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ord_payout_requests_insert();
CREATE TRIGGER ord_payout_requests_after_update AFTER UPDATE ON public.payout_requests REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ord_payout_requests_update();
CREATE TRIGGER ord_payout_requests_lock_moved_row BEFORE UPDATE ON public.payout_requests FOR EACH ROW WHEN ((((old.account_id IS DISTINCT FROM new.account_id) OR (old.created_at IS DISTINCT FROM new.created_at)) OR (old.id IS DISTINCT FROM new.id))) EXECUTE FUNCTION ord_payout_requests_lock();
CREATE TRIGGER ord_payout_requests_lock_row BEFORE INSERT OR DELETE ON public.payout_requests FOR EACH ROW EXECUTE FUNCTION ord_payout_requests_lock();
CREATE TRIGGER events_on_posts_insert AFTER INSERT ON public.posts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION events_posts_created();
CREATE TRIGGER posts_counters_on_delete AFTER DELETE ON public.posts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_counters_removed();
CREATE TRIGGER posts_counters_on_insert AFTER INSERT ON public.posts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_counters_added();
CREATE TRIGGER posts_counters_on_truncate AFTER TRUNCATE ON public.posts FOR EACH STATEMENT EXECUTE FUNCTION posts_counters_truncated();
CREATE TRIGGER posts_counters_on_update AFTER UPDATE ON public.posts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION posts_counters_changed();
