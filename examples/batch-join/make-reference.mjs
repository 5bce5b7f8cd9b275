#!/usr/bin/env node
// Writes reference.parquet, the example's reference dataset: one row per task (id,
// question, target), no answers; the answers are in the two batch outputs, keyed by id.
// The file is checked in; run this only to change it (`node examples/batch-join/make-reference.mjs`),
// then `npm run example:batch-join` to see the figures move.
import { writeFileSync } from "node:fs";
import { parquetWriteBuffer } from "hyparquet-writer";

const rows = [
  { id: "q1", question: "What is the capital of France?", target: "Paris" },
  { id: "q2", question: "What is 12 * 12?", target: "144" },
  { id: "q3", question: "Which planet is known as the red planet?", target: "Mars" },
  { id: "q4", question: "What is the chemical symbol for gold?", target: "Au" },
  { id: "q5", question: "Who wrote Hamlet?", target: "Shakespeare" },
  {
    id: "q6",
    question: "What is the boiling point of water at sea level in Celsius?",
    target: "100",
  },
];

const columnData = ["id", "question", "target"].map((name) => ({
  name,
  type: "STRING",
  data: rows.map((row) => row[name]),
}));
// Snappy, the codec the Hugging Face Hub's Parquet files use.
const buffer = parquetWriteBuffer({ columnData, codec: "SNAPPY" });
writeFileSync(new URL("reference.parquet", import.meta.url), new Uint8Array(buffer));
