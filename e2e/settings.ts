// Shared by playwright.config.ts, the e2e web server and the specs: where the app listens, where
// the server tells the specs which database it started, and where each role's signed-in browser
// state is kept. Files are keyed by port so runs on different ports do not overwrite each other.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { Role } from "../lib/domain/access";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Outside Playwright's outputDir (test-results/artifacts), which it empties at start. */
const STATE_DIR = path.join(ROOT, "test-results");

export function e2ePort(): number {
  const raw = process.env.E2E_PORT ?? "3100";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`E2E_PORT must be a TCP port number, got "${raw}"`);
  }
  return port;
}

/**
 * Whether the app under test reads its screens through a read-only role (DATABASE_READ_URL):
 * on unless E2E_READ_REPLICA=0 (e2e/server.ts says why it is the default).
 */
export function e2eReadReplica(): boolean {
  return process.env.E2E_READ_REPLICA !== "0";
}

const e2eDatabaseSchema = z.object({
  name: z.string(),
  appUrl: z.string(),
  ownerUrl: z.string(),
  /** DATABASE_READ_URL: the database as a read-only login role; null with E2E_READ_REPLICA=0. */
  readerUrl: z.string().nullable(),
  /** A superuser, for the specs that stage what no role of the app may do (a detached archive). */
  superUrl: z.string(),
  port: z.number(),
});

export type E2eDatabase = z.infer<typeof e2eDatabaseSchema>;

/** Written by e2e/server.ts once the database is migrated and seeded, removed when it stops. */
export const E2E_DB_FILE = path.join(STATE_DIR, `e2e-db-${e2ePort()}.json`);

/** The app's LEDGER_ARCHIVE_DIR: archives a spec writes for it to read (created empty, removed at stop). */
export const E2E_ARCHIVE_DIR = path.join(STATE_DIR, `e2e-archives-${e2ePort()}`);

/** A role's cookies after signing in through the sign-in page (e2e/auth.setup.ts writes it). */
export function authStateFile(role: Role): string {
  return path.join(STATE_DIR, ".auth", String(e2ePort()), `${role}.json`);
}

export function readE2eDatabase(): E2eDatabase {
  return e2eDatabaseSchema.parse(JSON.parse(readFileSync(E2E_DB_FILE, "utf8")));
}

/**
 * Signs the e2e app's session cookies, a test-only value; it also signs callback links (the
 * app has no CALLBACK_SECRET).
 */
export const E2E_AUTH_SECRET = "e2e-only-secret-e2e-only-secret-e2e-only";
