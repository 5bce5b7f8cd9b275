import { z } from "zod";

/**
 * A scorer described as data, so that it travels inside a job and any worker can rebuild
 * it. `key` names the result column (defaults to `name`); it lets one spec use the same
 * scorer twice with different arguments.
 */
export const ScorerRefSchema = z.strictObject({
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
  key: z.string().min(1).optional(),
});
export type ScorerRef = z.infer<typeof ScorerRefSchema>;
export type ScorerRefInput = z.input<typeof ScorerRefSchema>;

export function scorerKey(ref: Pick<ScorerRef, "name" | "key">): string {
  return ref.key ?? ref.name;
}
