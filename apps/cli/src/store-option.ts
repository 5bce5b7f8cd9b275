import { readEnv } from "@assay/core";
import { openStore, type Store } from "@assay/store";

export interface StoreTarget {
  databaseUrl?: string;
  dataDir?: string;
}

/**
 * `--db` takes a postgres:// URL or a folder for the embedded store. Without it,
 * DATABASE_URL wins, then the embedded store in ASSAY_DATA_DIR (default .assay/).
 */
export function storeTarget(db: string | undefined): StoreTarget {
  const env = readEnv();
  const chosen = db ?? env.DATABASE_URL;
  if (chosen !== undefined && /^postgres(ql)?:\/\//.test(chosen)) return { databaseUrl: chosen };
  return { dataDir: chosen ?? env.ASSAY_DATA_DIR };
}

export function describeStore(target: StoreTarget): string {
  return target.databaseUrl !== undefined ? "postgres" : `embedded store in ${target.dataDir}/`;
}

export async function openStoreFor(
  db: string | undefined,
  options: { migrate?: boolean } = {},
): Promise<Store> {
  return openStore({ ...storeTarget(db), ...options });
}

export const DB_OPTION_HELP =
  "postgres:// URL or folder of the embedded store (default: $DATABASE_URL, else .assay/)";
