import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, the build context of both images. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const INFRA = join(ROOT, "infra");
export const K8S = join(INFRA, "k8s");
