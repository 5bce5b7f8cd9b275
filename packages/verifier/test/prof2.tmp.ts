import { loadModel, createVerifierScorer } from "../src/index.js";
const m = await loadModel("/tmp/vt-dec", {threads:2});
const s = createVerifierScorer(m, {model: m.name});
console.log(JSON.stringify(await s({question:"q ".repeat(5000), answer:"a", metadata:{}} as never, {})).slice(0,300));
await m.close();
