import type { RunSpec } from "@assay/core";

/**
 * Routing used when no --spec is given: numbers are compared numerically, objects as tool
 * calls, text with SQuAD exact match and F1. Anything else needs a spec.
 */
export const DEFAULT_SPEC: RunSpec = {
  name: "default",
  rules: [
    {
      name: "numeric-target",
      when: { target_type: "number" },
      scorers: [{ name: "numeric", args: {} }],
    },
    {
      name: "object-target",
      when: { target_type: "object" },
      scorers: [{ name: "tool_call", args: {} }],
    },
    {
      name: "text-target",
      when: { target_type: ["string", "list"] },
      scorers: [
        { name: "exact", args: {} },
        { name: "f1", args: {} },
      ],
    },
  ],
};
