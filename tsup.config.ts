// The npm package's build: each public entry point (entry/*.ts) and the CLI as ESM in dist/,
// with .d.ts for the entry points. Dependencies stay external (npm installs them); the
// migrations are copied beside the bundles, where db/migrate.ts looks for them.
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { defineConfig } from "tsup";

// tsup's own clean would also sweep dist/dashboard (the dashboard's build, made by `npm run
// build`, which a test may be packing at this moment): only what this build writes goes.
for (const name of (() => {
  try {
    return readdirSync("dist");
  } catch {
    return [];
  }
})()) {
  if (name !== "dashboard") rmSync(path.join("dist", name), { recursive: true, force: true });
}

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
  clean: false,
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
  // Run as a command: this config imports nothing of the project's folders.
  onSuccess: "node --import tsx scripts/ship-migrations.ts dist/migrations",
});
