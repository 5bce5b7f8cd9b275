import { defineConfig } from "drizzle-kit";

// Only `generate` runs from here (no database needed); migrations are applied by
// `assay migrate` or automatically for the embedded store.
export default defineConfig({
  dialect: "postgresql",
  schema: "./packages/store/src/schema.ts",
  out: "./migrations",
});
