import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { INFRA } from "./paths.js";

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string | null>;
  volumes?: string[];
  ports?: string[];
  expose?: string[];
  healthcheck?: {
    test?: string[];
    disable?: boolean;
    interval?: string;
    timeout?: string;
    start_period?: string;
  };
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  profiles?: string[];
  stop_grace_period?: string;
  deploy?: {
    replicas?: number;
    resources?: {
      reservations?: {
        devices?: { driver?: string; device_ids?: string[]; count?: number | string }[];
      };
    };
  };
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export const COMPOSE_PATH = join(INFRA, "compose.yaml");
export const HOST_PORTS_PATH = join(INFRA, "compose.host-ports.yaml");

/** What an operator must set before compose runs at all (infra/.env or the environment). */
export const REQUIRED_ENV = { REDIS_PASSWORD: "0123456789abcdef" };

/**
 * infra/compose.yaml (or `path`) as `docker compose config` sees it: YAML merge keys
 * resolved, then every `${VAR}` interpolated from `env` (defaults where unset), before any
 * validation.
 */
export function loadCompose(
  env: Record<string, string> = REQUIRED_ENV,
  path = COMPOSE_PATH,
): ComposeFile {
  const raw: unknown = parse(readFileSync(path, "utf8"), { merge: true });
  return interpolateTree(raw, env) as ComposeFile;
}

function interpolateTree(value: unknown, env: Record<string, string>): unknown {
  if (typeof value === "string") return interpolate(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolateTree(item, env));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateTree(item, env)]),
    );
  }
  return value;
}

/**
 * The Compose specification's interpolation for the forms this project uses: `$$`, `${VAR}`,
 * `${VAR:-default}`, `${VAR-default}`, and `${VAR:?message}` / `${VAR?message}`, which fail
 * as `docker compose` does when VAR is unset (`:?`: or empty). Any other form fails, so the
 * test cannot pass over a syntax it does not understand.
 */
export function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced, bare) => {
    if (match === "$$") return "$";
    if (bare !== undefined) return env[bare as string] ?? "";
    const form = /^([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])(.*))?$/s.exec(braced as string);
    if (form === null) throw new Error(`Unsupported interpolation ${match} in "${text}"`);
    const [, name, operator, fallback] = form as unknown as [string, string, string?, string?];
    const set = env[name];
    if (
      (operator === ":?" && (set === undefined || set === "")) ||
      (operator === "?" && set === undefined)
    ) {
      throw new Error(`required variable ${name} is missing a value: ${fallback ?? ""}`);
    }
    if (operator === ":-") return set === undefined || set === "" ? (fallback ?? "") : set;
    if (operator === "-") return set ?? fallback ?? "";
    return set ?? "";
  });
}

/** Seconds of a Compose duration such as "60s", "2m" or "1m30s". */
export function durationSeconds(duration: string): number {
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|ns)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== duration) {
    throw new Error(`Not a Compose duration: "${duration}"`);
  }
  const unit = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, ns: 1e-9 } as const;
  return parts.reduce(
    (total, [, amount, suffix]) => total + Number(amount) * unit[suffix as keyof typeof unit],
    0,
  );
}
