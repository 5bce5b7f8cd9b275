import type { Manifest } from "./manifests.js";
import { typecheckSource } from "./typecheck-source.js";

/** Where the model interface of each API group lives. */
const MODEL_MODULES: Record<string, string> = {
  v1: "kubernetes-models/v1",
  "apps/v1": "kubernetes-models/apps/v1",
  "batch/v1": "kubernetes-models/batch/v1",
  "keda.sh/v1alpha1": "@kubernetes-models/keda/keda.sh/v1alpha1",
};

/**
 * Type-checks each manifest as an object literal of its kubernetes-models interface. The
 * models' JSON-schema validation lets unknown fields through (so does the API server's
 * schema); TypeScript's excess-property check does not, which catches the misspelled field
 * that `kubectl apply` would refuse (strict field validation) or that a lenient server
 * would silently drop. Returns "file kind/name: message" per error.
 */
export function typecheckManifests(manifests: Manifest[]): string[] {
  const lines: string[] = [];
  manifests.forEach((manifest, index) => {
    const module = MODEL_MODULES[manifest.apiVersion];
    if (module === undefined) throw new Error(`No model module for ${manifest.apiVersion}`);
    lines.push(`import type { I${manifest.kind} as T${index} } from "${module}/${manifest.kind}";`);
  });
  const firstManifestLine = lines.length;
  manifests.forEach((manifest, index) => {
    const { file: _file, ...object } = manifest;
    lines.push(`export const m${index}: T${index} = ${JSON.stringify(object)};`);
  });

  return typecheckSource("__manifests__.ts", lines.join("\n"), ["lib.es2022.d.ts"], (line) => {
    const manifest = manifests[line - firstManifestLine];
    return manifest
      ? `${manifest.file} ${manifest.kind}/${manifest.metadata.name}`
      : `line ${line + 1}`;
  });
}
