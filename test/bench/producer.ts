/**
 * Producer benchmark (part of `npm run bench:queue`): `assay produce` on a generated
 * 1,000,000-line dataset, as its own process, into its own Redis and a fresh Postgres
 * schema. Reports lines/s and the producer's peak RSS (target ≤ 300 MB: memory is bounded
 * however long the dataset). The queue is emptied as it fills, standing in for very fast
 * workers, so what is measured is the producer itself.
 */

import { once } from "node:events";
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openStore } from "@assay/store";
import { Queue } from "bullmq";
import { startRedis } from "../distributed/support/redis-server.js";
import { DATABASE_URL, dropSchema, freshSchema } from "../distributed/support/services.js";
import { fmt, measureProcess } from "./bench-util.js";

const { values: flags } = parseArgs({ options: { lines: { type: "string", default: "1000000" } } });
const lines = Number(flags.lines);

const dir = mkdtempSync(join(tmpdir(), "assay-bench-producer-"));
const dataset = join(dir, "data.jsonl");
const spec = join(dir, "spec.yaml");
writeFileSync(spec, "name: bench-producer\nrules: []\ndefault:\n  scorers: [{ name: exact }]\n");
await writeDataset(dataset, lines);

const redis = await startRedis(["--maxmemory-policy", "noeviction"]);
const schema = freshSchema();
await (await openStore({ databaseUrl: DATABASE_URL, schema, migrate: true })).close();
const queue = new Queue("cpu", {
  connection: { url: redis.url, maxRetriesPerRequest: null },
  prefix: "bench",
});
const drainer = setInterval(() => void queue.drain().catch(() => {}), 100);
try {
  // The built entry point, as deployed (`npm run bench:queue` builds first).
  const run = await measureProcess(process.execPath, [
    "apps/producer/dist/main.js",
    dataset,
    ...["--spec", spec, "--run-id", "bench", "--quiet"],
    ...[
      "--db",
      DATABASE_URL,
      "--db-schema",
      schema,
      "--redis",
      redis.url,
      "--queue-prefix",
      "bench",
    ],
  ]);
  if (run.exitCode !== 0) throw new Error(`producer exited ${run.exitCode}:\n${run.stderr}`);
  console.log(
    `bench:producer — ${fmt(lines)} lines in ${fmt(run.wallMs / 1000, 1)} s: ${fmt((lines * 1000) / run.wallMs)} lines/s, ` +
      `peak RSS ${fmt(run.peakRssMb)} MB (target ≤ 300 MB)`,
  );
} finally {
  clearInterval(drainer);
  await queue.close();
  await redis.remove();
  await dropSchema(schema);
  rmSync(dir, { recursive: true, force: true });
}

async function writeDataset(file: string, count: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < count; i += 1) {
    const line = `${JSON.stringify({ id: `s${i}`, question: `What is ${i} + 1?`, answer: `${i + 1}`, target: `${i + 1}` })}\n`;
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}
