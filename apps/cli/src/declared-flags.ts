/**
 * Each action declares the flags it reads; commander infers the flags a command parses from
 * its `.option()` calls. The two must name the same flags: a flag renamed on one side only
 * would otherwise reach the action as `undefined` without a word from the compiler, since
 * an optional property may be missing and an extra one is ignored.
 */
type Unmatched<Parsed, Declared> =
  | Exclude<keyof Parsed, keyof Declared>
  | Exclude<keyof Declared, keyof Parsed>;

/** `Declared` when the keys match; else a type naming the odd flags, which no action takes. */
type Matched<Parsed, Declared> = [Unmatched<Parsed, Declared>] extends [never]
  ? Declared
  : { flagsDeclaredOnOneSideOnly: Unmatched<Parsed, Declared> };

/** `declaredFlags<RunFlags>()(flags)`: the parsed flags, typed as the action declares them. */
export function declaredFlags<Declared>() {
  return <Parsed extends Declared>(parsed: Parsed): Matched<Parsed, Declared> =>
    parsed as unknown as Matched<Parsed, Declared>;
}
