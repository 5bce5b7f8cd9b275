import { realpath } from "node:fs/promises";
import { isAbsolute, join, normalize, relative, sep } from "node:path";
import { printable } from "@assay/core";
import { ModelFolderError } from "../errors/model-folder-error.js";

/**
 * The real path of a file that assay.json names (`field`), checked to lie inside the model
 * folder before anything reads it. A folder may come from anyone: a name such as
 * `../../secret.txt`, an absolute path, or a symbolic link whose target leaves the folder
 * would let it make Assay read (and copy, or quote in an error) a file of the machine.
 * Links that stay inside the folder are followed.
 */
export async function folderFile(dir: string, name: string, field: string): Promise<string> {
  const assayFile = join(dir, "assay.json");
  const shown = `\`${printable(name)}\``;
  if (isAbsolute(name)) {
    throw new ModelFolderError(
      assayFile,
      `${shown} is an absolute path; name a file inside the model folder, relative to it`,
      field,
    );
  }
  const normal = normalize(name);
  if (normal === ".." || normal.startsWith(`..${sep}`)) {
    throw new ModelFolderError(
      assayFile,
      `${shown} leads out of the model folder; name a file inside it`,
      field,
    );
  }
  const [realDir, realFile] = await Promise.all([
    realpath(dir),
    realpath(join(dir, normal)).catch(() => {
      throw new ModelFolderError(assayFile, `${shown} is missing or unreadable`, field);
    }),
  ]);
  const inside = relative(realDir, realFile);
  if (inside === "") {
    throw new ModelFolderError(
      assayFile,
      `${shown} names the model folder itself, not a file`,
      field,
    );
  }
  if (inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
    throw new ModelFolderError(
      assayFile,
      `${shown} is a symbolic link (or lies under one) whose target is outside the model folder; copy the file into the folder`,
      field,
    );
  }
  return realFile;
}
