import { z } from "zod";

const EnvSchema = z.object({
  /** Postgres server; when unset the embedded PGlite store is used. */
  DATABASE_URL: z.string().min(1).optional(),
  REDIS_URL: z.string().min(1).default("redis://127.0.0.1:6379"),
  ASSAY_LOG_LEVEL: z
    .enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"])
    .default("info"),
  /** Folder of the embedded store. */
  ASSAY_DATA_DIR: z.string().min(1).default(".assay"),
});
export type AssayEnv = z.infer<typeof EnvSchema>;

/** Environment variables are read here and nowhere else. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): AssayEnv {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Environment variable ${String(issue?.path[0])}: ${issue?.message}`);
  }
  return parsed.data;
}

/** A connection URL with its password replaced, safe for logs and error messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, "//$1:***@");
  }
}
