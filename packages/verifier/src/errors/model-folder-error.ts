import { ConfigError } from "@assay/core";

/** A model folder (or hub id) that cannot be used; names the file and, when known, the field. */
export class ModelFolderError extends ConfigError {
  override name = "ModelFolderError";
  readonly file: string;
  readonly field: string;

  constructor(file: string, message: string, field = "") {
    super(`${file}:${field === "" ? "" : ` field \`${field}\`:`} ${message}`);
    this.file = file;
    this.field = field;
  }
}
