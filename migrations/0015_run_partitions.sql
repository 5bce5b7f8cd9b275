ALTER TABLE "runs" ADD COLUMN "pruned_at" timestamp with time zone;--> statement-breakpoint
-- The per-run raw tables become LIST-partitioned on run_id, one partition per run, so that
-- `assay prune` drops a run's raw rows whole (DROP TABLE) instead of deleting millions of
-- rows and leaving the indexes bloated. Every primary key and unique constraint already
-- holds run_id, as a partitioned table requires. There is no DEFAULT partition: creating a
-- partition would have to scan it, and a write for a run that has none fails with "no
-- partition of relation ... found for row" instead of landing where no prune reaches it.
--
-- The names of the tables partitioned, in the order a run's partitions are made. Every
-- table that grows with a run's samples, tasks or results is; input_errors is not: it holds
-- one row per refused line, and a pruned run's summary and the analyst_runs view count it.
CREATE FUNCTION assay_run_partitioned_tables() RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT ARRAY['samples', 'scores', 'truncations', 'usage', 'selections']
$fn$;
--> statement-breakpoint
-- A run's partition of a table: a valid identifier whatever the run id (md5 of the id).
-- pg_inherits and pg_get_expr(relpartbound) say the same from the catalog.
CREATE FUNCTION assay_run_partition(parent text, run_id text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
  SELECT parent || '_' || md5(run_id)
$fn$;
--> statement-breakpoint
-- Makes the run's partitions that do not exist yet. CREATE TABLE + ATTACH PARTITION takes a
-- SHARE UPDATE EXCLUSIVE lock on the parent, which lets other runs read and write on;
-- CREATE TABLE ... PARTITION OF would take ACCESS EXCLUSIVE and wait behind every report.
-- The new table is empty, so ATTACH has nothing to scan; indexes follow from the parent.
CREATE FUNCTION assay_create_run_partitions(run_id text) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
  parent text;
  part text;
BEGIN
  FOREACH parent IN ARRAY assay_run_partitioned_tables() LOOP
    part := assay_run_partition(parent, run_id);
    IF to_regclass(quote_ident(part)) IS NULL THEN
      EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)',
                     part, parent);
      EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES IN (%L)',
                     parent, part, run_id);
    END IF;
  END LOOP;
END
$fn$;
--> statement-breakpoint
-- The views read these tables by identity, not by name: keep their definitions, drop them,
-- and make them again once the tables are partitioned (in the order they were made).
CREATE TEMP TABLE assay_saved_views AS
SELECT c.oid, c.relname AS name, pg_get_viewdef(c.oid) AS definition
FROM pg_class c
WHERE c.relkind = 'v' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema());
--> statement-breakpoint
-- The primary keys, unique constraints and indexes of each table, made again on the parent
-- (and so on every partition) once the rows are in: one index build instead of row by row.
CREATE TEMP TABLE assay_saved_indexes AS
SELECT t.relname AS parent,
       CASE WHEN con.oid IS NOT NULL
            THEN format('ALTER TABLE %I ADD CONSTRAINT %I %s', t.relname, con.conname,
                        pg_get_constraintdef(con.oid))
            ELSE pg_get_indexdef(i.indexrelid) END AS definition
FROM pg_index i
JOIN pg_class t ON t.oid = i.indrelid
LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.contype IN ('p', 'u')
WHERE t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
  AND t.relname = ANY (assay_run_partitioned_tables());
--> statement-breakpoint
DO $$
DECLARE
  saved record;
  parent text;
  run text;
BEGIN
  FOR saved IN SELECT name FROM assay_saved_views ORDER BY oid DESC LOOP
    EXECUTE format('DROP VIEW IF EXISTS %I CASCADE', saved.name);
  END LOOP;
  FOREACH parent IN ARRAY assay_run_partitioned_tables() LOOP
    EXECUTE format('ALTER TABLE %I RENAME TO %I', parent, parent || '_unpartitioned');
    EXECUTE format(
      'CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY LIST (run_id)',
      parent, parent || '_unpartitioned');
  END LOOP;
  -- Every run, and any run id the raw rows name without a runs row, gets its partitions.
  FOR run IN
    SELECT id FROM runs
    UNION SELECT run_id FROM samples_unpartitioned
    UNION SELECT run_id FROM scores_unpartitioned
    UNION SELECT run_id FROM truncations_unpartitioned
    UNION SELECT run_id FROM usage_unpartitioned
    UNION SELECT run_id FROM selections_unpartitioned
  LOOP
    PERFORM assay_create_run_partitions(run);
  END LOOP;
  FOREACH parent IN ARRAY assay_run_partitioned_tables() LOOP
    EXECUTE format('INSERT INTO %I SELECT * FROM %I', parent, parent || '_unpartitioned');
    EXECUTE format('DROP TABLE %I', parent || '_unpartitioned');
  END LOOP;
  FOR saved IN SELECT definition FROM assay_saved_indexes LOOP
    EXECUTE saved.definition;
  END LOOP;
  FOR saved IN SELECT name, definition FROM assay_saved_views ORDER BY oid LOOP
    EXECUTE format('CREATE VIEW %I AS %s', saved.name, saved.definition);
  END LOOP;
  -- The analysts' read access, as migration 0010 gave it, on the new tables and views.
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'assay_analyst') THEN
    EXECUTE format(
      'GRANT SELECT ON %s TO assay_analyst',
      (SELECT string_agg(format('%I.%I', current_schema(), n), ', ')
       FROM (SELECT unnest(assay_run_partitioned_tables()) AS n
             UNION ALL SELECT name FROM assay_saved_views) AS names));
  END IF;
END
$$;
--> statement-breakpoint
DROP TABLE pg_temp.assay_saved_views, pg_temp.assay_saved_indexes;
