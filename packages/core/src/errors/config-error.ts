import { AssayError } from "./assay-error.js";

/** Bad configuration or an unreachable service; the message says how to fix it. */
export class ConfigError extends AssayError {
  override name = "ConfigError";
}
