import pg from "pg";
import { openStore } from "@assay/store";
const url = "postgres://postgres@127.0.0.1:5432/test";
const schema = "assay_lockcheck";
const admin = new pg.Client({ connectionString: url }); await admin.connect();
await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
const store = await openStore({ databaseUrl: url, schema, migrate: true });
await store.startRun({ id: "a", spec: {}, transport: "local" });
await store.close();
const conn = async () => { const c = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` }); await c.connect(); return c; };
const writer = await conn(), reader = await conn(), maker = await conn();
await writer.query("BEGIN");
await writer.query("INSERT INTO scores (run_id, sample_id, scorer, rule, status) VALUES ('a','s','x','d','scored')");
await reader.query("BEGIN");
await reader.query("SELECT count(*) FROM scores");
await maker.query("SET lock_timeout = '2s'");
await maker.query("INSERT INTO runs (id, spec, transport) VALUES ('b','{}','local'), ('c','{}','local')");
for (const [label, sql] of [
  ["CREATE TABLE + ATTACH PARTITION (assay_create_run_partitions)", "SELECT assay_create_run_partitions('b')"],
  ["CREATE TABLE ... PARTITION OF", "CREATE TABLE scores_c PARTITION OF scores FOR VALUES IN ('c')"],
]) {
  const t = performance.now();
  try { await maker.query(sql); console.log(`${label}: done in ${(performance.now()-t).toFixed(0)} ms while another run writes and a report reads`); }
  catch (e) { console.log(`${label}: ${e.message} after ${(performance.now()-t).toFixed(0)} ms`); }
}
await writer.query("ROLLBACK"); await reader.query("ROLLBACK");
for (const c of [writer, reader, maker]) await c.end();
await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`); await admin.end();
