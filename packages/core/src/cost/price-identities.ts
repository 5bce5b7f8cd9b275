import { SpecError } from "../errors/spec-error.js";
import { isModelPath, modelIdentity } from "../model-identity.js";
import type { PriceTable } from "./price-table.js";

/**
 * The price table with each model folder it names (a key written as a path, or naming a
 * folder here) also under the model's identity, which is what usage rows name a verifier
 * by (`modelIdentity`): `./models/v` in the table prices the verifier that `assay run` or a
 * GPU worker loaded as `models/v/`, `/abs/models/v` or a link to it. Paths are read from
 * `cwd`, as a spec's `args.model` is. Keys stay as written too (a generator's model name,
 * usage stored before identities). Two keys that name one model with different prices
 * are refused, naming both.
 */
export function priceTableWithIdentities(
  table: PriceTable,
  file: string,
  cwd = process.cwd(),
): PriceTable {
  const models = { ...table.models };
  // Which key each name's price came from: a key prices itself.
  const pricedBy = new Map(Object.keys(models).map((key) => [key, key]));
  for (const [key, price] of Object.entries(table.models)) {
    if (!isModelPath(key, cwd)) continue;
    const identity = modelIdentity(key, cwd);
    if (identity === key) continue;
    const earlier = pricedBy.get(identity);
    if (earlier !== undefined && JSON.stringify(models[identity]) !== JSON.stringify(price)) {
      throw new SpecError(
        file,
        `models.${key}`,
        `\`${key}\` and \`${earlier}\` name one model (${identity}) with different prices; keep one of them`,
      );
    }
    pricedBy.set(identity, key);
    models[identity] = price;
  }
  return { ...table, models };
}
