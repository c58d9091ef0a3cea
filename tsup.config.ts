// The npm package's build: each public entry point (entry/*.ts) and the CLI as ESM in dist/,
// with .d.ts for the entry points. Dependencies stay external (npm installs them); the
// migrations are copied beside the bundles, where db/migrate.ts looks for them.
import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "entry/index.ts",
    ai: "entry/ai.ts",
    mcp: "entry/mcp.ts",
    testing: "entry/testing.ts",
    cli: "scripts/cli/main.ts",
  },
  format: ["esm"],
  target: "node20",
  platform: "node",
  outDir: "dist",
  // dist/dashboard is the dashboard's build (npm run build), not tsup's.
  clean: ["!dashboard/**"],
  splitting: true,
  sourcemap: false,
  dts: {
    entry: {
      index: "entry/index.ts",
      ai: "entry/ai.ts",
      mcp: "entry/mcp.ts",
      testing: "entry/testing.ts",
    },
  },
  tsconfig: "tsconfig.build.json",
  onSuccess: async () => {
    // The SQL and drizzle's journal; the schema snapshots (3 MB) are for drizzle-kit only.
    cpSync("db/migrations", "dist/migrations", {
      recursive: true,
      filter: (src) => !src.endsWith("_snapshot.json"),
    });
  },
});
