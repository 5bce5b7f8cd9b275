-- A truncation row's criterion is "" for a scorer with a single criterion, as on the score
-- row it belongs to. Rows stored before carried the criterion's name ("default" when the
-- model names none; "pairwise" for a pairwise judgment). A scorer whose rows in a run carry
-- one criterion name had a single criterion, so its rows take "". Every row of that (run,
-- scorer) changes alike, so no two rows of one key can collide.
UPDATE "truncations" AS t SET "criterion" = ''
FROM (
  SELECT "run_id", "scorer" FROM "truncations"
  GROUP BY "run_id", "scorer"
  HAVING count(DISTINCT "criterion") = 1 AND min("criterion") <> ''
) AS single
WHERE t."run_id" = single."run_id" AND t."scorer" = single."scorer";
