#!/usr/bin/env node
// The `assay` command. A committed shim, so npm links it at install time, before
// `npm run build` has written dist/.
import "../dist/main.js";
