import { fileURLToPath } from "node:url";
import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { "@": fileURLToPath(new URL("./", import.meta.url)) },
    // `import … from "agent-ledger"` in tests and examples/library.ts runs the sources (the
    // package.json "agent-ledger-source" export condition), not a dist/ build that may be stale or absent.
    conditions: ["agent-ledger-source", ...defaultClientConditions],
  },
  // Without "module": vitest hands these conditions to Node as --conditions, and
  // @opentelemetry/api's "module" build is ESM Node cannot load (imports without extensions);
  // Node itself never uses that condition, so tests resolve packages as production does.
  ssr: {
    resolve: {
      conditions: ["agent-ledger-source", ...defaultServerConditions.filter((c) => c !== "module")],
    },
  },
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "e2e/**", ".next/**", ".data/**", "dist/**"],
    globalSetup: ["db/testing/global-setup.ts"],
    // Two files at a time: on the 2-core CI box vitest's default (one fewer than the cores) ran
    // the suite one file after another, while most files spend their time waiting on
    // PostgreSQL, child processes or timers. Each file has its own database (db/testing).
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
