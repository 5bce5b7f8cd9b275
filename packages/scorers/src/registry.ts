import {
  formatPath,
  type Pool,
  type RunSpec,
  type Scorer,
  type ScorerDefinition,
  type ScorerRef,
  SpecError,
  scorerKey,
  UnrecoverableJobError,
} from "@assay/core";
import { z } from "zod";
import { deterministicScorers } from "./scorers/index.js";

/**
 * Scorers by name. Specs are checked against it before any sample is scored, and workers
 * rebuild scorers from `{ name, args }` through it. Holds the deterministic scorers plus
 * any passed in (the verifier package adds its own).
 */
export class ScorerRegistry {
  readonly #definitions = new Map<string, ScorerDefinition<unknown>>();
  // A worker calls create() for every job; building a scorer (compiling a regex or a
  // schema) should happen once per distinct { name, args }.
  readonly #instances = new Map<string, Scorer>();
  // In one process every job of a rule carries the same ref object: looking it up skips
  // writing the key out (its args as JSON) once per job.
  readonly #instanceOfRef = new WeakMap<ScorerRef, Scorer>();

  constructor(extra: readonly ScorerDefinition<unknown>[] = []) {
    for (const definition of [...deterministicScorers, ...extra]) {
      if (this.#definitions.has(definition.name)) {
        throw new Error(`two scorers are named "${definition.name}"; scorer names must be unique`);
      }
      this.#definitions.set(definition.name, definition);
    }
  }

  /** Releases every definition's resources (a verifier's model sessions and threads). */
  async close(): Promise<void> {
    await Promise.all([...this.#definitions.values()].map((definition) => definition.close?.()));
  }

  get(name: string): ScorerDefinition<unknown> | undefined {
    return this.#definitions.get(name);
  }

  names(): string[] {
    return [...this.#definitions.keys()].sort();
  }

  /** Parsed args of `ref`, or a SpecError saying where (`where`, `file`) and what is wrong. */
  validate(ref: ScorerRef, where: string, file = "run spec"): unknown {
    const checked = this.#check(ref);
    if (!checked.ok) throw new SpecError(file, where, checked.message);
    return checked.args;
  }

  /** Checks every scorer of every rule and of the default, so a bad spec fails before scoring. */
  validateSpec(spec: RunSpec, file: string): void {
    for (const rule of spec.rules) this.#validateList(rule.scorers, `rule "${rule.name}"`, file);
    if (spec.default !== undefined) this.#validateList(spec.default.scorers, "default", file);
    const judge = spec.selection?.judge;
    if (judge !== undefined) this.validate(judge, `selection judge (${judge.name})`, file);
  }

  /** The scorer for `ref`, built once per distinct name and args. */
  create(ref: ScorerRef): Scorer {
    const known = this.#instanceOfRef.get(ref);
    if (known !== undefined) return known;
    const cacheKey = `${ref.name}\u0000${JSON.stringify(ref.args)}`;
    let scorer = this.#instances.get(cacheKey);
    if (scorer === undefined) {
      const checked = this.#check(ref);
      // The spec was checked when it loaded, so this job is malformed: retrying cannot help.
      if (!checked.ok) throw new UnrecoverableJobError(`scorer "${ref.name}": ${checked.message}`);
      scorer = checked.definition.create(checked.args);
      this.#instances.set(cacheKey, scorer);
    }
    this.#instanceOfRef.set(ref, scorer);
    return scorer;
  }

  /** Which worker pool runs `ref`. */
  poolOf(ref: Pick<ScorerRef, "name">): Pool {
    const definition = this.#definitions.get(ref.name);
    if (definition === undefined) throw new UnrecoverableJobError(this.#unknownScorer(ref.name));
    return definition.pool;
  }

  #validateList(refs: readonly ScorerRef[], owner: string, file: string): void {
    const keys = new Set<string>();
    refs.forEach((ref, index) => {
      const where = `${owner} scorer #${index + 1} (${ref.name})`;
      this.validate(ref, where, file);
      const key = scorerKey(ref);
      if (keys.has(key)) {
        throw new SpecError(
          file,
          where,
          `result key "${key}" is used twice; give one of them a distinct \`key\``,
        );
      }
      keys.add(key);
    });
  }

  #check(
    ref: ScorerRef,
  ):
    | { ok: true; definition: ScorerDefinition<unknown>; args: unknown }
    | { ok: false; message: string } {
    const definition = this.#definitions.get(ref.name);
    if (definition === undefined) return { ok: false, message: this.#unknownScorer(ref.name) };
    const parsed = definition.args.safeParse(ref.args ?? {});
    if (parsed.success) return { ok: true, definition, args: parsed.data };
    return { ok: false, message: describeArgsError(ref.name, definition, parsed.error) };
  }

  #unknownScorer(name: string): string {
    return `unknown scorer "${name}"; known scorers: ${this.names().join(", ")}`;
  }
}

function describeArgsError(
  name: string,
  definition: ScorerDefinition<unknown>,
  error: z.ZodError,
): string {
  const problems = error.issues.slice(0, 3).map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const known = knownArgs(definition);
      const unknown = issue.keys.map((key) => `\`${key}\``).join(", ");
      return `unknown argument ${unknown}; ${known === "" ? "it takes no arguments" : `known arguments: ${known}`}`;
    }
    const field = formatPath(issue.path);
    return field === "" ? issue.message : `\`args.${field}\`: ${issue.message}`;
  });
  return `bad args for scorer "${name}": ${problems.join("; ")}`;
}

function knownArgs(definition: ScorerDefinition<unknown>): string {
  return definition.args instanceof z.ZodObject
    ? Object.keys(definition.args.shape).join(", ")
    : "";
}

let shared: ScorerRegistry | undefined;

/** The registry of deterministic scorers, shared so its scorer cache is shared too. */
export function defaultRegistry(): ScorerRegistry {
  shared ??= new ScorerRegistry();
  return shared;
}
