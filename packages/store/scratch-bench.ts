import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScoreRow } from "@assay/core";
import pg from "pg";
import { rawBulkInsertScores } from "./src/bench-baseline.js";
import { openStore } from "./src/open-store.js";
import type { Store } from "./src/store.js";

const N = 100_000;
function rows(runId: string): ScoreRow[] {
  return Array.from({ length: N }, (_, i) => ({
    runId, sampleId: `sample-${i}`, scorer: "exact", criterion: "", repetition: 0, rule: "default",
    status: i % 10 === 0 ? "unscored" : "scored", value: i % 10 === 0 ? null : (i % 7) / 7,
    reason: i % 10 === 0 ? "no_target" : null, detail: i % 10 === 0 ? { message: "x" } : null,
  }));
}
async function time(label: string, fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  const s = (performance.now() - t) / 1000;
  console.log(`${label}: ${s.toFixed(2)} s, ${Math.round(N / s).toLocaleString()} rows/s`);
  return s;
}
async function bench(store: Store) {
  console.log(`--- ${store.kind}`);
  const raw = await time("raw COPY", () => rawBulkInsertScores(store, rows("raw")));
  const one = await time("writeScores (one call, 100k)", () => store.writeScores(rows("one")));
  const batched = await time("writeScores (batches of 1000)", async () => {
    const all = rows("batched");
    for (let i = 0; i < N; i += 1000) await store.writeScores(all.slice(i, i + 1000));
  });
  const writer = await time("ScoreWriter add() x100k", async () => {
    const w = store.createScoreWriter();
    await Promise.all(rows("writer").map((r) => w.add(r)));
    await w.close();
    console.log("  stats", w.stats);
  });
  const again = await time("writeScores batches again (all conflicts)", async () => {
    const all = rows("batched");
    for (let i = 0; i < N; i += 1000) await store.writeScores(all.slice(i, i + 1000));
  });
  console.log(`ratios vs raw: one ${ (one/raw).toFixed(2)}x, batched ${(batched/raw).toFixed(2)}x, writer ${(writer/raw).toFixed(2)}x, redelivery ${(again/raw).toFixed(2)}x time`);
  for (const r of ["raw", "one", "batched", "writer"]) if ((await store.countResults(r)) !== N) throw new Error(r);
}
const url = "postgres://postgres@127.0.0.1:5432/test";
const pgStore = await openStore({ databaseUrl: url, schema: "scratch_bench", migrate: true });
await bench(pgStore);
await pgStore.close();
const c = new pg.Client(url); await c.connect(); await c.query("drop schema scratch_bench cascade"); await c.end();
const dir = await mkdtemp(join(tmpdir(), "bench-"));
const lite = await openStore({ dataDir: dir });
await bench(lite);
await lite.close();
await rm(dir, { recursive: true });
