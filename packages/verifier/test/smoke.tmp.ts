import { makeTinyModel, loadModel, createVerifierScorer } from "../src/index.js";
const t0 = performance.now();
await makeTinyModel("/tmp/vt-dec", { kind: "decoder" });
await makeTinyModel("/tmp/vt-dist", { kind: "decoder", head: "distribution" });
await makeTinyModel("/tmp/vt-enc", { kind: "encoder" });
console.log("make ms", performance.now() - t0);
for (const dir of ["/tmp/vt-dec", "/tmp/vt-enc", "/tmp/vt-dist"]) {
  const t1 = performance.now();
  const model = await loadModel(dir, { threads: 2 });
  console.log("load ms", performance.now() - t1);
  const scorer = createVerifierScorer(model, { model: dir, ...(dir.endsWith("dist") ? { repetitions: 2 } : {}) });
  const sample = { id: "1", taskId: "1", candidateIndex: 0, question: "Which compound is released? ".repeat(3000), answer: "C. Allomone", metadata: {}, line: 1 };
  const t2 = performance.now();
  const s = await scorer(sample, {});
  console.log(dir, performance.now() - t2, JSON.stringify(s).slice(0, 900));
  const s2 = await scorer({ ...sample, question: "Which compound is released?" }, {});
  console.log(JSON.stringify(s2).slice(0, 300));
}
