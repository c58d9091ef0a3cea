// Playwright's web server: a throwaway PostgreSQL with a fresh migrated, seeded database and
// the built app on it. On SIGTERM or SIGINT it stops the app first, then the database, so no
// postmaster or temp folder outlives the run.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createPool } from "../db/client";
import {
  createTestDatabaseFrom,
  dropTestDatabase,
  startTestCluster,
  type TestCluster,
} from "../db/testing/cluster";
import { createReadOnlyRole, type ReadOnlyRole } from "../db/testing/read-only-role";
import { seedDemo } from "../lib/server/commands/seed-demo";
import { seedDemoUsers } from "../lib/server/commands/users";
import {
  E2E_ARCHIVE_DIR,
  E2E_AUTH_SECRET,
  E2E_DB_FILE,
  type E2eDatabase,
  e2ePort,
  e2eReadReplica,
  ROOT,
} from "./settings";
import { E2E_WEB_PID_FILE } from "./web-process";

const log = (msg: string) => console.error(`[e2e-server] ${msg}`);

let cluster: { cluster: TestCluster; stop: () => Promise<void> } | undefined;
let database: string | undefined;
let reader: ReadOnlyRole | undefined;
let app: ChildProcess | undefined;
let stopping = false;

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stopAll(): Promise<void> {
  if (app) {
    app.kill("SIGTERM");
    if (!(await waitForExit(app, 5_000))) {
      log("next did not stop within 5 s; killing it");
      app.kill("SIGKILL");
      await waitForExit(app, 2_000);
    }
  }
  await reader
    ?.drop()
    .catch((err: unknown) => log(`could not drop ${reader?.role}: ${String(err)}`));
  if (cluster && database) {
    await dropTestDatabase(cluster.cluster, database).catch((err: unknown) =>
      log(`could not drop ${database}: ${String(err)}`),
    );
  }
  await cluster?.stop().catch((err: unknown) => log(`could not stop the database: ${String(err)}`));
  rmSync(E2E_DB_FILE, { force: true });
  rmSync(E2E_WEB_PID_FILE, { force: true });
  rmSync(E2E_ARCHIVE_DIR, { recursive: true, force: true });
}

function shutdown(code: number): void {
  if (stopping) return;
  stopping = true;
  stopAll().then(
    () => process.exit(code),
    (err: unknown) => {
      log(`shutdown failed: ${String(err)}`);
      process.exit(1);
    },
  );
}

process.on("SIGTERM", () => shutdown(0));
process.on("SIGINT", () => shutdown(0));

async function main(): Promise<void> {
  const port = e2ePort();
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID"))) {
    throw new Error("no production build in .next: run `next build` before the e2e tests");
  }

  cluster = await startTestCluster(process.env.TEST_DATABASE_URL);
  const urls = await createTestDatabaseFrom(cluster.cluster, "e2e");
  database = urls.name;

  const pool = createPool(urls.appUrl, { max: 2, applicationName: "agent-ledger-e2e-seed" });
  try {
    const { seeded } = await seedDemo(pool);
    await seedDemoUsers(pool, "system:seed");
    log(`database ${urls.name} ready${seeded ? ", demo seeded" : ""}`);
  } finally {
    await pool.end();
  }

  // The app reads its screens through DATABASE_READ_URL, here a role on this same database that
  // may only SELECT in read-only sessions: every screen read of every spec then runs where a
  // replica would serve it, so a screen read that writes, or a write sent to the read pool,
  // fails loudly instead of passing because one pool does both. Same database, so no lag: a
  // spec's own rows are visible at once. E2E_READ_REPLICA=0 runs the app on one pool.
  if (e2eReadReplica()) {
    reader = await createReadOnlyRole(urls.superUrl, urls.name);
    log(`screens read as ${reader.role} (read-only); E2E_READ_REPLICA=0 turns this off`);
  }

  const info: E2eDatabase = {
    name: urls.name,
    appUrl: urls.appUrl,
    ownerUrl: urls.ownerUrl,
    readerUrl: reader?.url ?? null,
    superUrl: urls.superUrl,
    port,
  };
  mkdirSync(path.dirname(E2E_DB_FILE), { recursive: true });
  rmSync(E2E_ARCHIVE_DIR, { recursive: true, force: true });
  mkdirSync(E2E_ARCHIVE_DIR, { recursive: true });
  writeFileSync(E2E_DB_FILE, `${JSON.stringify(info, null, 2)}\n`);

  if (stopping) return;
  // The web gate in front of Next (web/server.ts), as `npm start` runs it.
  app = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "web", "server.ts")], {
    cwd: ROOT,
    stdio: "inherit",
    env: {
      ...process.env,
      DATABASE_URL: urls.appUrl,
      ...(reader ? { DATABASE_READ_URL: reader.url } : {}),
      NEXT_TELEMETRY_DISABLED: "1",
      AUTH_SECRET: E2E_AUTH_SECRET,
      AUTH_BASE_URL: `http://127.0.0.1:${port}`,
      PORT: String(port),
      HOST: "127.0.0.1",
      // No worker runs here and the specs read a still database: the web server's own alert
      // delivery would send the seeded demo rule's alerts to a sink that is not running.
      ALERTS_IN_WEB: "false",
      // Archived tasks whose entries a spec removed are read from here (e2e/archived-task.spec.ts).
      LEDGER_ARCHIVE_DIR: E2E_ARCHIVE_DIR,
    },
  });
  // The abuse specs read the web server's memory from /proc/<pid>/status.
  if (app.pid) writeFileSync(E2E_WEB_PID_FILE, String(app.pid));
  app.once("exit", (code, signal) => {
    if (stopping) return;
    log(`next exited on its own (code ${code}, signal ${signal})`);
    shutdown(1);
  });
}

main().catch((err: unknown) => {
  log(`could not start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  shutdown(1);
});
