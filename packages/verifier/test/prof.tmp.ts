import { fillerText } from "../src/check/filler.js";
import { fitPrompt, loadTokenizer, resolvePrompt } from "../src/index.js";
import { readAssayConfig } from "../src/model/read-assay-config.js";
import { tinyModel } from "./fixtures.js";
const dir = await tinyModel();
const tok = await loadTokenizer(dir);
const cfg = await readAssayConfig(dir);
const q = fillerText(tok, 8000);
for (let i = 0; i < 6; i++) {
  const p = resolvePrompt(cfg.template, { question: q, answer: `answer ${i}`, metadata: {} }, "");
  if (!p.ok) throw 1;
  let t = performance.now();
  const r = fitPrompt(tok, p.pieces, { maxLength: 2048, margin: 8, policy: "error" });
  const fitMs = performance.now() - t;
  t = performance.now(); tok.encode(q, false); const encQ = performance.now() - t;
  t = performance.now(); tok.encode(q.slice(0, 9000), false); const enc2k = performance.now() - t;
  console.log(i, "fit", fitMs.toFixed(1), "encode 8k", encQ.toFixed(1), "encode ~2k", enc2k.toFixed(1), r.ok && r.ids.length);
}
