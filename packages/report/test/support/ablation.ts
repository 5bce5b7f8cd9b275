import { rateOf, type SelectionAblation } from "@assay/core";

/**
 * Three criteria × two variants on ten tasks: `spec` alone selects better than the mean
 * (8/10 against 7/10), `errors` alone worse (4/10), one variant worse (6/10).
 */
export const ABLATION: SelectionAblation = {
  scorer: "judge",
  method: "best_of_n",
  criteria: ["spec", "output", "errors"],
  variants: 2,
  rows: [
    { kind: "full", criterion: null, variants: 2, selected: rateOf(7, 10), unselected: 1, ties: 1 },
    {
      kind: "criterion",
      criterion: "spec",
      variants: 2,
      selected: rateOf(8, 10),
      unselected: 1,
      ties: 0,
    },
    {
      kind: "criterion",
      criterion: "output",
      variants: 2,
      selected: rateOf(7, 10),
      unselected: 1,
      ties: 2,
    },
    {
      kind: "criterion",
      criterion: "errors",
      variants: 2,
      selected: rateOf(4, 10),
      unselected: 2,
      ties: 3,
    },
    {
      kind: "variants",
      criterion: null,
      variants: 1,
      selected: rateOf(6, 10),
      unselected: 1,
      ties: 2,
    },
    {
      kind: "variants",
      criterion: null,
      variants: 2,
      selected: rateOf(7, 10),
      unselected: 1,
      ties: 1,
    },
  ],
};
