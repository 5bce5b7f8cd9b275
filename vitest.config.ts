import { defineConfig } from "vitest/config";

// Tests import workspace packages from their TypeScript sources (the "@assay/source"
// export condition), so no build is needed to run them.
export default defineConfig({
  resolve: { conditions: ["@assay/source"] },
  ssr: { resolve: { conditions: ["@assay/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    // Heavy tests (model building, real processes, chaos) take many times longer on a busy
    // 2-core machine than on a quiet one: a slow machine must not fail a test.
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/setup/require-services.ts"],
  },
});
