import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { K8S } from "./paths.js";

/** One Kubernetes object as written in infra/k8s, with the file it comes from. */
export interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked against their schemas
  spec?: any;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** Every object of every YAML file in infra/k8s except the kustomization itself. */
export function loadManifests(): Manifest[] {
  const manifests: Manifest[] = [];
  for (const file of manifestFiles()) {
    for (const document of parseAllDocuments(readFileSync(join(K8S, file), "utf8"))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
      const value = document.toJS() as Omit<Manifest, "file"> | null;
      if (value !== null) manifests.push({ file, ...value });
    }
  }
  return manifests;
}

export function manifestFiles(): string[] {
  return readdirSync(K8S)
    .filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml")
    .sort();
}

export function find(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (found === undefined) throw new Error(`No ${kind} ${name} in infra/k8s`);
  return found;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  resources?: {
    requests?: Record<string, string | number>;
    limits?: Record<string, string | number>;
  };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  // biome-ignore lint/suspicious/noExplicitAny: probes are checked against their schemas
  [probe: string]: any;
}

/** The pod template's spec of a Deployment, StatefulSet or Job; the spec of a Pod. */
// biome-ignore lint/suspicious/noExplicitAny: checked against the schemas elsewhere
export function podSpec(manifest: Manifest): any {
  return manifest.kind === "Pod" ? manifest.spec : manifest.spec?.template?.spec;
}

export function containersOf(manifest: Manifest): Container[] {
  return (podSpec(manifest)?.containers ?? []) as Container[];
}
