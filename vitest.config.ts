import { defineConfig } from "vitest/config";

// Tests import workspace packages from their TypeScript sources (the "@assay/source"
// export condition), so no build is needed to run them.
export default defineConfig({
  resolve: { conditions: ["@assay/source"] },
  ssr: { resolve: { conditions: ["@assay/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    globalSetup: ["test/setup/require-services.ts"],
  },
});
