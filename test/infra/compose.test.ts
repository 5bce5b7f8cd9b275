import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseAssay } from "./support/cli-parse.js";
import {
  type ComposeFile,
  type ComposeService,
  HOST_PORTS_PATH,
  interpolate,
  loadCompose,
  REQUIRED_ENV,
} from "./support/compose.js";
import { assayArgsOf } from "./support/entry-points.js";
import { INFRA } from "./support/paths.js";

// The Compose specification's JSON schema as `docker compose` itself validates with
// (compose-go), vendored with its source and license in infra/schemas/.
const validateCompose = new Ajv2020({ allErrors: true, strictTypes: false }).compile(
  JSON.parse(readFileSync(join(INFRA, "schemas", "compose-spec.json"), "utf8")),
);

function schemaErrors(file: unknown): string[] {
  if (validateCompose(file)) return [];
  return (validateCompose.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const ASSAY_DOCKERFILES = new Set(["infra/Dockerfile", "infra/gpu.Dockerfile"]);
const isAssay = (service: ComposeService) => ASSAY_DOCKERFILES.has(service.build?.dockerfile ?? "");
const isWorker = (service: ComposeService) =>
  (service.command ?? []).some((arg) => /apps\/worker-(cpu|gpu)\/dist\/main\.js$/.test(arg));
const isGpuWorker = (service: ComposeService) =>
  (service.command ?? []).includes("apps/worker-gpu/dist/main.js");

async function workerOptions(service: ComposeService) {
  const argv = [...(service.entrypoint ?? []), ...(service.command ?? [])];
  return (await parseAssay(assayArgsOf(argv) as string[])).options;
}

describe("infra/compose.yaml", () => {
  const compose = loadCompose();

  it("is valid against the Compose specification, with defaults and with every variable set", () => {
    expect(schemaErrors(compose)).toEqual([]);
    const set = loadCompose({
      ASSAY_IMAGE: "registry.example/assay:1.2.3",
      ASSAY_GPU_IMAGE: "registry.example/assay-gpu:1.2.3",
      VERIFIER_MODEL: "qwen3-verifier",
      MODELS_DIR: "/srv/models",
      DATASETS_DIR: "/srv/datasets",
      POSTGRES_PASSWORD: "s3cret",
      REDIS_PASSWORD: "0f1e2d3c4b5a",
    });
    expect(schemaErrors(set)).toEqual([]);
    expect(set.services["worker-gpu"]?.command).toContain("/models/qwen3-verifier");
  });

  it("will not start without REDIS_PASSWORD, and says where to set it", () => {
    expect(() => loadCompose({})).toThrow(
      /required variable REDIS_PASSWORD is missing a value: set REDIS_PASSWORD in infra\/\.env/,
    );
    expect(() => loadCompose({ REDIS_PASSWORD: "" })).toThrow(/REDIS_PASSWORD/);
  });

  it("gives Redis and every Assay service the one password; Redis is started by redis-start.sh", () => {
    const redis = compose.services.redis as ComposeService;
    expect(redis.environment?.REDIS_PASSWORD).toBe(REQUIRED_ENV.REDIS_PASSWORD);
    expect(redis.entrypoint).toEqual([
      "sh",
      "/usr/local/etc/redis/redis-start.sh",
      "/usr/local/etc/redis/redis.conf",
    ]);
    expect(redis.volumes).toEqual(
      expect.arrayContaining([
        "./redis.conf:/usr/local/etc/redis/redis.conf:ro",
        "./redis-start.sh:/usr/local/etc/redis/redis-start.sh:ro",
      ]),
    );
    const assay = Object.entries(compose.services).filter(([, service]) => isAssay(service));
    expect(assay.length).toBeGreaterThanOrEqual(6);
    for (const [name, service] of assay) {
      expect(service.environment?.REDIS_PASSWORD, name).toBe(REQUIRED_ENV.REDIS_PASSWORD);
      expect(service.environment?.REDIS_URL, name).toBe("redis://redis:6379");
    }
  });

  it("publishes no port on the host; compose.host-ports.yaml publishes Redis, Postgres and Grafana on loopback", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      expect(service.ports, name).toBeUndefined();
    }
    const ports = loadCompose({}, HOST_PORTS_PATH);
    expect(schemaErrors(ports)).toEqual([]);
    expect(ports.services.redis?.ports).toEqual(["127.0.0.1:6379:6379"]);
    expect(ports.services.postgres?.ports).toEqual(["127.0.0.1:5432:5432"]);
    expect(ports.services.grafana?.ports).toEqual(["127.0.0.1:3000:3000"]);
    const moved = loadCompose(
      { ASSAY_REDIS_PORT: "16379", ASSAY_POSTGRES_PORT: "15432", ASSAY_GRAFANA_PORT: "13000" },
      HOST_PORTS_PATH,
    );
    expect(moved.services.redis?.ports).toEqual(["127.0.0.1:16379:6379"]);
    expect(moved.services.postgres?.ports).toEqual(["127.0.0.1:15432:5432"]);
    expect(moved.services.grafana?.ports).toEqual(["127.0.0.1:13000:3000"]);
    expect(Object.keys(ports.services).every((name) => name in compose.services)).toBe(true);
  });

  it("would be refused by that schema with a misspelled key (the check is not vacuous)", () => {
    const broken = structuredClone(compose) as ComposeFile;
    (broken.services["worker-cpu"] as Record<string, unknown>).stop_grace = "60s";
    expect(schemaErrors(broken).join("\n")).toContain("must NOT have additional properties");
  });

  it("mounts only files and folders that exist beside it", () => {
    const mounted: string[] = [];
    for (const [name, service] of Object.entries(compose.services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(":")[0] as string;
        // Folders an operator provides (models, datasets) are variables with a default.
        if (!source.startsWith("./") || /^\.\/(models|datasets)$/.test(source)) continue;
        expect(existsSync(join(INFRA, source)), `${name} mounts ${source}`).toBe(true);
        mounted.push(source);
      }
    }
    expect(mounted).toEqual(
      expect.arrayContaining([
        "./prometheus.yml",
        "./analyst-login.sh",
        "./grafana/provisioning",
        "./grafana/dashboards",
      ]),
    );
  });

  it("keeps the dashboards out of a plain `up`: Prometheus, Grafana and the analyst login are in profile monitoring", () => {
    for (const name of ["prometheus", "grafana", "analyst-login"]) {
      expect(compose.services[name]?.profiles, name).toEqual(["monitoring"]);
    }
    expect(compose.services.grafana?.depends_on).toEqual({
      prometheus: { condition: "service_healthy" },
      "analyst-login": { condition: "service_completed_successfully" },
    });
    // One password for the login and the data source, from infra/.env; none by default.
    const analyst = compose.services["analyst-login"]?.environment ?? {};
    expect(analyst.ASSAY_ANALYST_PASSWORD).toBe("");
    expect(compose.services.grafana?.environment?.ASSAY_ANALYST_PASSWORD).toBe("");
    const set = loadCompose({ ...REQUIRED_ENV, ASSAY_ANALYST_PASSWORD: "abc123" });
    expect(set.services["analyst-login"]?.environment?.ASSAY_ANALYST_PASSWORD).toBe("abc123");
    expect(set.services.grafana?.environment?.ASSAY_ANALYST_PASSWORD).toBe("abc123");
  });

  it("has Prometheus scrape every worker service on the port it serves metrics on", async () => {
    const config = parse(readFileSync(join(INFRA, "prometheus.yml"), "utf8")) as {
      scrape_configs: { dns_sd_configs: { names: string[]; type: string; port: number }[] }[];
    };
    const targets = config.scrape_configs.flatMap((job) =>
      job.dns_sd_configs.flatMap((sd) => sd.names.map((name) => `${name}:${sd.port}`)),
    );
    const workers = Object.entries(compose.services).filter(([, s]) => isWorker(s));
    for (const [name, service] of workers) {
      const options = await workerOptions(service);
      expect(targets, name).toContain(`${name}:${options.metricsPort}`);
      expect(service.expose, name).toContain(String(options.metricsPort));
    }
    expect(targets.length).toBe(workers.length);
  });

  it("refers only to services and volumes it declares", () => {
    const names = Object.keys(compose.services);
    const volumes = Object.keys(compose.volumes ?? {});
    for (const [name, service] of Object.entries(compose.services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        expect(names, `${name} depends on ${dependency}`).toContain(dependency);
      }
      for (const volume of service.volumes ?? []) {
        const source = volume.split(":")[0] as string;
        if (!/^[./]/.test(source)) expect(volumes, `${name} mounts ${source}`).toContain(source);
      }
    }
  });

  it("gives every service a healthcheck; one-shot tools say explicitly that they have none", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      const check = service.healthcheck;
      expect(check, name).toBeDefined();
      if (check?.disable === true) {
        expect(service.restart, `${name} has no healthcheck, so it must be one-shot`).toBe("no");
      } else {
        expect(check?.test?.[0], name).toMatch(/^CMD(-SHELL)?$/);
      }
    }
  });

  it("checks each worker's readiness on the port it serves metrics on, with node (in both images)", async () => {
    const workers = Object.entries(compose.services).filter(([, s]) => isWorker(s));
    expect(workers.map(([name]) => name).sort()).toEqual([
      "worker-cpu",
      "worker-gpu",
      "worker-gpu-1",
    ]);
    for (const [name, service] of workers) {
      const options = await workerOptions(service);
      const [form, program, flag, script] = service.healthcheck?.test ?? [];
      expect([form, program, flag], name).toEqual(["CMD", "node", "-e"]);
      expect(script, name).toContain(`http://127.0.0.1:${options.metricsPort}/readyz`);
    }
  });

  it("runs each GPU worker on the one GPU it reserves, as cuda:0, with the model volume mounted", async () => {
    const gpu = Object.entries(compose.services).filter(([, s]) => isGpuWorker(s));
    const deviceIds: string[] = [];
    for (const [name, service] of gpu) {
      expect(service.build?.dockerfile, name).toBe("infra/gpu.Dockerfile");
      expect(service.deploy?.replicas ?? 1, `${name}: one process per GPU`).toBe(1);
      const devices = service.deploy?.resources?.reservations?.devices ?? [];
      expect(devices, name).toHaveLength(1);
      expect(devices[0]?.driver, name).toBe("nvidia");
      expect(devices[0]?.device_ids, name).toHaveLength(1);
      deviceIds.push(...(devices[0]?.device_ids ?? []));

      // The container sees only its reserved GPU, as device 0.
      const options = await workerOptions(service);
      expect(options.device, name).toBe("cuda:0");
      // --model is a folder under a read-only volume, never a hub id or a path in the image.
      const mount = (service.volumes ?? [])
        .map((volume) => volume.split(":"))
        .find(([, target]) => (options.model as string).startsWith(`${target}/`));
      expect(mount, `${name}: ${options.model} is not on a mounted volume`).toBeDefined();
      expect(mount?.[2], name).toBe("ro");
    }
    expect(new Set(deviceIds).size, "each GPU service pins a different GPU").toBe(deviceIds.length);
    expect(deviceIds.length).toBeGreaterThanOrEqual(2);
  });

  it("passes the verifier's settings from the host to each GPU worker, unset when the host has none", () => {
    const gpu = Object.entries(compose.services).filter(([, s]) => isGpuWorker(s));
    expect(gpu.length).toBeGreaterThanOrEqual(2);
    for (const [name, service] of gpu) {
      const environment = service.environment ?? {};
      // A key without a value: the host's variable, or none (then assay.json decides).
      for (const key of ["ASSAY_MAX_BATCH_TOKENS", "ASSAY_MAX_BATCH_ROWS", "ASSAY_PREFIX_REUSE"]) {
        expect(Object.hasOwn(environment, key), `${name} ${key}`).toBe(true);
        expect(environment[key], `${name} ${key}`).toBeNull();
      }
      // The settings every Assay service shares are still there.
      expect(environment.REDIS_URL, name).toBe("redis://redis:6379");
    }
  });

  it("keeps the CPU pool and the tools on the CPU image, without a GPU", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (!isAssay(service) || isGpuWorker(service)) continue;
      expect(service.build?.dockerfile, name).toBe("infra/Dockerfile");
      expect(service.deploy?.resources?.reservations?.devices, name).toBeUndefined();
    }
  });

  it("lets workers drain on SIGTERM within their grace period", () => {
    for (const [name, service] of Object.entries(compose.services).filter(([, s]) => isWorker(s))) {
      expect((service as { stop_signal?: string }).stop_signal, name).toBe("SIGTERM");
      expect(service.stop_grace_period, name).toMatch(/^\d+s$/);
    }
  });
});

describe("interpolate", () => {
  it("reads the forms the compose file uses and refuses the others", () => {
    const env = { SET: "value", EMPTY: "" };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's syntax, not JavaScript's
    expect(interpolate("${SET:-x}/${UNSET:-x}/${EMPTY:-x}/${EMPTY-x}/$$SET/$SET", env)).toBe(
      "value/x/x//$SET/value",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's syntax, not JavaScript's
    expect(interpolate("${SET:?required}/${EMPTY?required}", env)).toBe("value/");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's syntax, not JavaScript's
    expect(() => interpolate("${EMPTY:?set it}", env)).toThrow(
      "required variable EMPTY is missing a value: set it",
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's syntax, not JavaScript's
    expect(() => interpolate("${UNSET?set it}", env)).toThrow(/UNSET is missing a value/);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Compose's syntax, not JavaScript's
    expect(() => interpolate("${SET:+other}", env)).toThrow(/Unsupported interpolation/);
  });
});
