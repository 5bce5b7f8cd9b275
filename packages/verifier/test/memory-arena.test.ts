import { tinyModel } from "@assay/test-support/tiny-models";
import { describe, expect, it } from "vitest";
import { loadModel } from "../src/index.js";

describe("memoryArena: false", () => {
  it("scores every batch shape exactly as the default session does", async () => {
    // Without the arena each batch gets fresh buffers; lengths vary so plans and buffers
    // of several shapes are exercised, and no value may depend on which allocator ran.
    const dir = await tinyModel();
    const withArena = await loadModel(dir, { threads: 1 });
    const withoutArena = await loadModel(dir, { threads: 1, memoryArena: false });
    try {
      const output = withArena.config.head.output;
      const rows = [3, 17, 64, 9].map((length) =>
        Array.from({ length }, (_, i) => 10 + ((i * 37) % 400)),
      );
      const scores = (model: typeof withArena) =>
        Promise.all(rows.map(async (ids) => [...(await model.forward(ids, output)).output]));
      // Alone and together: one row per pass, then one padded batch of all four.
      for (const ids of rows) {
        const a = (await withArena.forward(ids, output)).output;
        const b = (await withoutArena.forward(ids, output)).output;
        expect([...b]).toEqual([...a]);
      }
      expect(await scores(withoutArena)).toEqual(await scores(withArena));
    } finally {
      await withArena.close();
      await withoutArena.close();
    }
  });
});
