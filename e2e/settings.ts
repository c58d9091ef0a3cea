// Shared by playwright.config.ts, the e2e web server and the specs: where the app listens and
// where the server tells the specs which database it started.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Outside Playwright's outputDir (test-results/artifacts), which it empties at start. */
export const E2E_DB_FILE = fileURLToPath(new URL("../test-results/e2e-db.json", import.meta.url));

export function e2ePort(): number {
  const raw = process.env.E2E_PORT ?? "3100";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`E2E_PORT must be a TCP port number, got "${raw}"`);
  }
  return port;
}

const e2eDatabaseSchema = z.object({
  name: z.string(),
  appUrl: z.string(),
  ownerUrl: z.string(),
  port: z.number(),
});

export type E2eDatabase = z.infer<typeof e2eDatabaseSchema>;

export function readE2eDatabase(): E2eDatabase {
  return e2eDatabaseSchema.parse(JSON.parse(readFileSync(E2E_DB_FILE, "utf8")));
}
