import { ConfigError, redactUrl } from "@assay/core";

/** How a Postgres URL's connection is set up, with the schema taken out of its options. */
export interface ServerConnection {
  /** The URL without its `options` parameter. */
  connectionString: string;
  /** The schema holding Assay's tables: `--db-schema`, else the URL's search_path. */
  schema: string | undefined;
  /** libpq `options` for every connection: the URL's others, then the schema's search_path. */
  options: string | undefined;
}

const SEARCH_PATH = /^(?:-c\s*|--)search_path=(\S+)$/;

/**
 * Reads the libpq `options` of a postgres:// URL (`?options=-c%20search_path%3Dnightly`).
 * The driver would let them override the search_path the store sets for `--db-schema`, and
 * the migrations would be recorded in one schema while the tables went to another; so a
 * search_path there is the store's schema, as `--db-schema` is, and a URL and a flag that
 * name two different schemas are refused. The URL's other options are kept.
 */
export function serverConnection(
  databaseUrl: string,
  dbSchema: string | undefined,
): ServerConnection {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return { connectionString: databaseUrl, schema: dbSchema, options: searchPath(dbSchema) };
  }
  const given = url.searchParams.get("options");
  if (given === null) {
    return { connectionString: databaseUrl, schema: dbSchema, options: searchPath(dbSchema) };
  }
  url.searchParams.delete("options");
  const kept: string[] = [];
  let fromUrl: string | undefined;
  for (const option of splitOptions(given)) {
    const match = SEARCH_PATH.exec(option);
    if (match === null) kept.push(option);
    else fromUrl = (match[1] as string).split(",")[0]?.replace(/^"|"$/g, "");
  }
  if (fromUrl !== undefined && dbSchema !== undefined && fromUrl !== dbSchema) {
    throw new ConfigError(
      `The database URL ${redactUrl(databaseUrl)} sets search_path=${fromUrl} in its options, ` +
        `and --db-schema says ${dbSchema}: drop one of them, or make them name the same schema.`,
    );
  }
  const schema = dbSchema ?? fromUrl;
  const options = [...kept, ...(schema === undefined ? [] : [`-c search_path=${schema}`])];
  return {
    connectionString: url.toString(),
    schema,
    options: options.length === 0 ? undefined : options.join(" "),
  };
}

function searchPath(schema: string | undefined): string | undefined {
  return schema === undefined ? undefined : `-c search_path=${schema}`;
}

/** libpq's options words: `-c name=value` pairs (a backslash escapes a space). */
function splitOptions(options: string): string[] {
  const words = options
    .trim()
    .split(/(?<!\\)\s+/)
    .filter((word) => word !== "");
  const joined: string[] = [];
  for (let i = 0; i < words.length; i += 1) {
    const word = words[i] as string;
    if (word === "-c" && i + 1 < words.length) {
      joined.push(`-c ${words[i + 1]}`);
      i += 1;
    } else joined.push(word);
  }
  return joined;
}
