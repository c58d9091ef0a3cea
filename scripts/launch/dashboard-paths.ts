// Where the built dashboard lives, relative to the package root: written by
// scripts/build-dashboard.ts, run by `agent-ledger dashboard`, copied by the Dockerfile.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export const DASHBOARD_DIR = "dist/dashboard";
export const DASHBOARD_SERVER = `${DASHBOARD_DIR}/server.js`;

/**
 * The agent-ledger package root above `from`: this checkout when run from source, the installed
 * package when run from its build (dist/cli.js). Undefined when there is none.
 */
export function packageRoot(from: string): string | undefined {
  let dir = from;
  for (;;) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest)) {
      try {
        if (
          (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === "agent-ledger"
        )
          return dir;
      } catch {
        // A package.json that is not JSON is not ours: keep looking above it.
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
