import type { z } from "zod";

/** `a.b[2].c` for a zod issue path; "" for the root. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** The first issue of a zod error as { field, message }, worded for a person. */
export function firstIssue(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  if (issue === undefined) return { field: "", message: "invalid value" };
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.map((k) => `\`${k}\``).join(", ");
    return {
      field: formatPath(issue.path),
      message: `unknown field ${keys}; put extra information under \`metadata\``,
    };
  }
  return { field: formatPath(issue.path), message: issue.message };
}
