import { ConfigError } from "@assay/core/errors";

/** The module `load` imports, or undefined where its package is not installed. */
export async function importOptional<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch (error) {
    if (isMissingModule(error)) return undefined;
    throw error;
  }
}

/** The module `load` imports, or a ConfigError saying `missing` where it is not installed. */
export async function importRequired<T>(load: () => Promise<T>, missing: string): Promise<T> {
  const pkg = await importOptional(load);
  if (pkg !== undefined) return pkg;
  throw new ConfigError(missing);
}

function isMissingModule(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}
