import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readEnv } from "@assay/core";
import { DEFAULT_PREFIX, queueNameFor } from "@assay/queue";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseAssay } from "./support/cli-parse.js";
import { durationSeconds, loadCompose } from "./support/compose.js";
import { assayArgsOf } from "./support/entry-points.js";
import {
  type Container,
  containersOf,
  find,
  loadManifests,
  type Manifest,
  manifestFiles,
  podSpec,
} from "./support/manifests.js";
import { INFRA, K8S } from "./support/paths.js";
import { typecheckManifests } from "./support/typecheck-manifests.js";

const MODEL_MODULES: Record<string, string> = {
  v1: "kubernetes-models/v1",
  "apps/v1": "kubernetes-models/apps/v1",
  "batch/v1": "kubernetes-models/batch/v1",
  "keda.sh/v1alpha1": "@kubernetes-models/keda/keda.sh/v1alpha1",
};

/** The model class's JSON-schema validation (the API's OpenAPI schema, KEDA's CRD schema). */
async function schemaErrors(manifest: Manifest): Promise<string[]> {
  const { file: _file, ...object } = manifest;
  const module = (await import(`${MODEL_MODULES[manifest.apiVersion]}/${manifest.kind}`)) as Record<
    string,
    new (
      data: unknown,
    ) => { validate(): void }
  >;
  const Model = module[manifest.kind];
  if (Model === undefined) return [`no model for ${manifest.apiVersion} ${manifest.kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

const kustomization = parse(readFileSync(join(K8S, "kustomization.yaml"), "utf8")) as {
  namespace: string;
  resources: string[];
};

/** The Assay arguments of a container, parsed by the CLI's own program. */
async function assayOptions(container: Container) {
  const argv = [...(container.command ?? []), ...(container.args ?? [])];
  return (await parseAssay(assayArgsOf(argv) as string[])).options as {
    pool?: "cpu" | "gpu";
    model?: string;
    device?: string;
    concurrency?: number;
    metricsPort?: number;
    queuePrefix: string;
  };
}

/** Bytes of a Kubernetes quantity (3Gi, 512Mi) or a Redis size (2gb, 512mb: powers of 1024). */
function bytes(size: string): number {
  const match = /^(\d+)(Gi|Mi|gb|mb)$/.exec(size);
  if (match === null) throw new Error(`Unexpected size "${size}"`);
  const unit = match[2] === "Gi" || match[2] === "gb" ? 1024 ** 3 : 1024 ** 2;
  return Number(match[1]) * unit;
}

const workerPool = (manifest: Manifest) =>
  manifest.kind === "Deployment" &&
  /apps\/worker-(cpu|gpu)\/dist\/main\.js/.exec(
    containersOf(manifest)[0]?.command?.join(" ") ?? "",
  )?.[1];

describe("infra/k8s", () => {
  const manifests = loadManifests();
  const workers = manifests.filter(workerPool);

  it("every object is valid against its Kubernetes or KEDA schema", async () => {
    expect(manifests.length).toBeGreaterThan(10);
    for (const manifest of manifests) {
      expect(await schemaErrors(manifest), `${manifest.file} ${manifest.kind}`).toEqual([]);
    }
  });

  it("every object has only fields its model declares, of the declared types", () => {
    expect(typecheckManifests(manifests)).toEqual([]);
  });

  it("both checks refuse what they should (they are not vacuous)", async () => {
    const deployment = structuredClone(find(manifests, "Deployment", "worker-gpu"));
    deployment.spec.template.spec.containers[0].ports[0].containerPort = "9464";
    expect((await schemaErrors(deployment)).join()).toMatch(/containerPort must be integer/);

    const scaled = structuredClone(find(manifests, "ScaledObject", "worker-gpu"));
    scaled.spec.cooldown = 600;
    const misspelled = structuredClone(deployment);
    misspelled.spec.template.spec.containers[0].ports[0].containerPort = 9464;
    misspelled.spec.template.spec.terminationGracePeriod = 120;
    const errors = typecheckManifests([scaled, misspelled]).join("\n");
    expect(errors).toMatch(/keda\.yaml ScaledObject\/worker-gpu: .*\bcooldown\b/);
    expect(errors).toMatch(/worker-gpu\.yaml Deployment\/worker-gpu: .*\bterminationGracePeriod\b/);
  });

  it("the kustomization applies every manifest but the examples, into one namespace", () => {
    const files = manifestFiles();
    expect([...kustomization.resources].sort()).toEqual(
      files.filter((file) => !file.includes(".example.")),
    );
    expect(find(manifests, "Namespace", kustomization.namespace)).toBeDefined();
    for (const manifest of manifests) {
      const applied = kustomization.resources.includes(manifest.file);
      // Applied through kustomize, which sets the namespace; examples are applied by hand.
      expect(manifest.metadata.namespace, `${manifest.file}`).toBe(
        applied || manifest.kind === "Namespace" ? undefined : kustomization.namespace,
      );
    }
  });

  it("expects Postgres elsewhere: every Assay container reads DATABASE_URL from one Secret, and each that talks to Redis its password from another", async () => {
    const secret = find(manifests, "Secret", "assay-database");
    expect(Object.keys(secret.stringData ?? {})).toEqual(["DATABASE_URL"]);
    expect(kustomization.resources).not.toContain(secret.file);
    const redisSecret = find(manifests, "Secret", "assay-redis");
    expect(Object.keys(redisSecret.stringData ?? {})).toEqual(["REDIS_PASSWORD"]);
    expect(kustomization.resources, "never overwritten by an apply").not.toContain(
      redisSecret.file,
    );
    for (const manifest of manifests) {
      for (const container of containersOf(manifest)) {
        expect(container.image, "no Postgres runs in the cluster").not.toMatch(/postgres/);
        if (!/^assay(-gpu)?:/.test(container.image)) continue;
        const sources = (container.envFrom ?? []).map(
          (s) => s.secretRef?.name ?? s.configMapRef?.name,
        );
        const argv = [...(container.command ?? []), ...(container.args ?? [])];
        const { command } = await parseAssay(assayArgsOf(argv) as string[]);
        const needsRedis = command !== "migrate";
        expect(sources, `${manifest.file} ${container.name}`).toEqual([
          "assay-config",
          "assay-database",
          ...(needsRedis ? ["assay-redis"] : []),
        ]);
      }
    }
  });

  it("runs Redis as a StatefulSet with infra/redis.conf (noeviction, AOF) on a persistent volume", () => {
    const files = find(manifests, "ConfigMap", "redis-config").data ?? {};
    const conf = files["redis.conf"] ?? "";
    expect(conf).toBe(readFileSync(join(INFRA, "redis.conf"), "utf8"));
    expect(files["redis-start.sh"]).toBe(readFileSync(join(INFRA, "redis-start.sh"), "utf8"));
    const directive = (name: string) => new RegExp(`^${name} (.+)$`, "m").exec(conf)?.[1];
    expect(directive("maxmemory-policy")).toBe("noeviction");
    expect(directive("appendonly")).toBe("yes");

    const redis = find(manifests, "StatefulSet", "redis");
    const container = containersOf(redis)[0] as Container;
    const claim = redis.spec.volumeClaimTemplates[0].metadata.name;
    const dataMount = container.volumeMounts?.find((mount) => mount.name === claim);
    // redis.conf names no folder; redis-start.sh gives its default when the command gives none.
    expect(directive("dir")).toBeUndefined();
    expect(container.command).not.toContain("--dir");
    const startDir = /^default_dir=(\S+)$/m.exec(files["redis-start.sh"] ?? "")?.[1];
    expect(dataMount?.mountPath, "the AOF is written on the claim").toBe(startDir);
    const confPath = container.command?.at(-1) ?? "";
    const confMount = container.volumeMounts?.find((m) => confPath.startsWith(`${m.mountPath}/`));
    const confVolume = podSpec(redis).volumes.find(
      (v: { name: string }) => v.name === confMount?.name,
    );
    expect(confVolume?.configMap?.name).toBe("redis-config");
    // Started by redis-start.sh from the same ConfigMap, with the password from the Secret.
    expect(container.command?.slice(0, 2)).toEqual([
      "sh",
      `${confMount?.mountPath}/redis-start.sh`,
    ]);
    expect(container.env).toEqual([
      {
        name: "REDIS_PASSWORD",
        valueFrom: { secretKeyRef: { name: "assay-redis", key: "REDIS_PASSWORD" } },
      },
    ]);

    // Redis needs room above maxmemory (client buffers, the AOF rewrite's fork).
    expect(bytes(String(container.resources?.limits?.memory))).toBeGreaterThan(
      bytes(directive("maxmemory") ?? ""),
    );

    // REDIS_URL points at the Service in front of the StatefulSet.
    const url = new URL(find(manifests, "ConfigMap", "assay-config").data?.REDIS_URL ?? "");
    const service = find(manifests, "Service", url.hostname);
    expect(service.spec.ports[0].port).toBe(Number(url.port));
    expect(redis.spec.serviceName).toBe(service.metadata.name);
  });

  it("probes each worker's health on its metrics port and gives it the compose file's drain time", async () => {
    const compose = loadCompose();
    expect(workers.map((w) => w.metadata.name).sort()).toEqual(["worker-cpu", "worker-gpu"]);
    for (const worker of workers) {
      const name = worker.metadata.name;
      const container = containersOf(worker)[0] as Container;
      const options = await assayOptions(container);
      const port = container.ports?.find((p) => p.containerPort === options.metricsPort);
      expect(port, `${name} exposes --metrics-port`).toBeDefined();
      // Ready only while it takes jobs with both servers reachable; alive while it answers.
      const paths = { startupProbe: "/livez", readinessProbe: "/readyz", livenessProbe: "/livez" };
      for (const [probe, path] of Object.entries(paths)) {
        expect(container[probe]?.httpGet, `${name} ${probe}`).toEqual({ path, port: port?.name });
      }
      const grace = compose.services[name]?.stop_grace_period ?? "";
      expect(podSpec(worker).terminationGracePeriodSeconds, name).toBe(durationSeconds(grace));
      expect(worker.spec.replicas, `${name}: KEDA owns the replica count`).toBeUndefined();
    }
  });

  it("gives each GPU pod one GPU, used as cuda:0, and the model from a read-only volume", async () => {
    const gpu = find(manifests, "Deployment", "worker-gpu");
    const container = containersOf(gpu)[0] as Container;
    expect(container.image).toMatch(/^assay-gpu:/);
    expect(container.resources?.limits?.["nvidia.com/gpu"]).toBe(1);
    const options = await assayOptions(container);
    expect(options.device).toBe("cuda:0");

    const mount = container.volumeMounts?.find((m) => options.model?.startsWith(`${m.mountPath}/`));
    expect(mount?.readOnly).toBe(true);
    const volume = podSpec(gpu).volumes.find((v: { name: string }) => v.name === mount?.name);
    const claim = find(manifests, "PersistentVolumeClaim", volume.persistentVolumeClaim.claimName);
    expect(claim.spec.accessModes, "shared by every GPU pod").toContain("ReadWriteMany");
    expect(volume.persistentVolumeClaim.readOnly).toBe(true);

    const cpu = containersOf(find(manifests, "Deployment", "worker-cpu"))[0] as Container;
    expect(cpu.image).toMatch(/^assay:/);
    expect(cpu.resources?.limits?.["nvidia.com/gpu"]).toBeUndefined();
  });

  it("gives GPU pods the verifier's settings from an optional ConfigMap whose example parses", () => {
    const gpu = containersOf(find(manifests, "Deployment", "worker-gpu"))[0] as Container;
    const example = find(manifests, "ConfigMap", "assay-verifier");
    expect(kustomization.resources, "an operator's choice, applied by hand").not.toContain(
      example.file,
    );
    const keys = Object.keys(example.data ?? {}).sort();
    expect(keys).toEqual(["ASSAY_MAX_BATCH_ROWS", "ASSAY_MAX_BATCH_TOKENS", "ASSAY_PREFIX_REUSE"]);
    const fromConfigMap = (gpu.env ?? []).map(
      (variable: { name: string; valueFrom?: { configMapKeyRef?: unknown } }) => [
        variable.name,
        variable.valueFrom?.configMapKeyRef,
      ],
    );
    expect(fromConfigMap.sort()).toEqual(
      keys.map((key) => [key, { name: "assay-verifier", key, optional: true }]),
    );
    // The values an operator copies from the example are ones the worker accepts.
    expect(readEnv(example.data)).toMatchObject({
      ASSAY_MAX_BATCH_TOKENS: 8192,
      ASSAY_MAX_BATCH_ROWS: 64,
      ASSAY_PREFIX_REUSE: "on",
    });
  });

  it("scales each pool from zero on the BullMQ lists of the queue its workers serve", async () => {
    const redisUrl = new URL(find(manifests, "ConfigMap", "assay-config").data?.REDIS_URL ?? "");
    const scaled = manifests.filter((m) => m.kind === "ScaledObject");
    expect(scaled.map((s) => s.spec.scaleTargetRef.name).sort()).toEqual(
      workers.map((w) => w.metadata.name).sort(),
    );
    for (const object of scaled) {
      const target = find(manifests, "Deployment", object.spec.scaleTargetRef.name);
      const options = await assayOptions(containersOf(target)[0] as Container);
      const queue = `${options.queuePrefix}:${queueNameFor(options.pool as "cpu", options.model)}`;
      expect(options.queuePrefix).toBe(DEFAULT_PREFIX);
      expect(object.spec.minReplicaCount).toBe(0);
      expect(object.spec.maxReplicaCount).toBeGreaterThan(0);

      const triggers = object.spec.triggers as {
        type: string;
        metadata: Record<string, string>;
        authenticationRef?: { name: string };
      }[];
      const byList = Object.fromEntries(triggers.map((t) => [t.metadata.listName, t]));
      expect(Object.keys(byList).sort()).toEqual([`${queue}:active`, `${queue}:wait`]);
      for (const trigger of triggers) {
        expect(trigger.type).toBe("redis");
        // KEDA's operator runs in its own namespace: the Service's full name.
        expect(trigger.metadata.address).toBe(
          `${redisUrl.hostname}.${kustomization.namespace}.svc.cluster.local:${redisUrl.port}`,
        );
        // KEDA gives Redis the password Redis was started with.
        const auth = find(
          manifests,
          "TriggerAuthentication",
          trigger.authenticationRef?.name ?? "",
        );
        expect(auth.spec.secretTargetRef).toEqual([
          { parameter: "password", name: "assay-redis", key: "REDIS_PASSWORD" },
        ]);
      }
      // A worker with a full load counts as one replica: busy workers are never scaled away.
      expect(Number(byList[`${queue}:active`]?.metadata.listLength)).toBe(options.concurrency);
      expect(Number(byList[`${queue}:wait`]?.metadata.listLength)).toBeGreaterThan(0);
    }
  });

  it("runs the migrations as a Job that can run again on the next version", () => {
    const job = find(manifests, "Job", "assay-migrate");
    expect(job.spec.ttlSecondsAfterFinished).toBeGreaterThan(0);
    expect(job.spec.backoffLimit).toBeGreaterThan(0);
  });
});
