// `npm start` builds the dashboard only when its inputs changed since the last build: a
// content hash of the sources is kept beside the build output.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const INPUTS = [
  "app",
  "components",
  "lib",
  "db/schema",
  "db/migrations",
  "db/client.ts",
  "public",
  "next.config.ts",
  "postcss.config.mjs",
  "tsconfig.json",
  "package-lock.json",
];

function collect(root: string, rel: string, out: string[]): void {
  const full = path.join(root, rel);
  if (!existsSync(full)) return;
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      collect(root, path.join(rel, name), out);
    }
  } else if (!/\.test\.tsx?$/.test(rel)) {
    out.push(rel);
  }
}

export function sourceHash(root: string): string {
  const files: string[] = [];
  for (const input of INPUTS) collect(root, input, files);
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(file);
    hash.update("\0");
    hash.update(readFileSync(path.join(root, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

export function buildIfNeeded(root: string): void {
  const marker = path.join(root, ".next", "agent-ledger-source-hash");
  const current = sourceHash(root);
  const built =
    existsSync(path.join(root, ".next", "BUILD_ID")) &&
    existsSync(marker) &&
    readFileSync(marker, "utf8").trim() === current;
  if (built) return;
  console.log("Building the dashboard (about a minute the first time)…");
  const result = spawnSync(path.join(root, "node_modules", ".bin", "next"), ["build"], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status})`);
  writeFileSync(marker, `${current}\n`);
}
