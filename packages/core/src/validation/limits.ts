/**
 * What a dataset line may hold so that Postgres `text` and `jsonb` can store it as written.
 * docs/cli.md ("Bad input") documents each limit; change them together.
 */

/** Objects and lists nest at most this deep, counting the line itself as level 1. */
export const MAX_NESTING_DEPTH = 64;

/**
 * Longest `id` / `task_id` / scorer `key`, in UTF-16 code units. Ids are part of unique
 * indexes, and a Postgres btree row must stay under about 2.7 kB.
 */
export const MAX_ID_LENGTH = 512;

/** Token counts are stored as Postgres `integer`. */
export const MAX_TOKEN_COUNT = 2_147_483_647;
