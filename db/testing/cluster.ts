// Throwaway PostgreSQL for tests: a fresh embedded cluster on a free port with fsync off, or
// the server at TEST_DATABASE_URL (a superuser URL). Either way it holds a migrated template
// database, and each test file gets its own copy of it.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  clusterUrls,
  freePort,
  initCluster,
  newClusterState,
  startPostmaster,
  stopPostmaster,
} from "../embedded";
import { migrateDatabase } from "../migrate";
import {
  APP_ROLE,
  type Credentials,
  createDatabase,
  dropDatabase,
  OWNER_ROLE,
  provisionRoles,
  withCredentials,
} from "../provision";

export type TestCluster = {
  superUrl: string;
  credentials: Credentials;
  template: string;
};

const TEST_CREDENTIALS: Credentials = {
  ownerPassword: "agent-ledger-test-owner",
  appPassword: "agent-ledger-test-app",
};

/** Starts (or connects to) the server and prepares the template. Returns it and a teardown. */
export async function startTestCluster(
  testDatabaseUrl: string | undefined,
): Promise<{ cluster: TestCluster; stop: () => Promise<void> }> {
  let superUrl: string;
  let stopServer = async () => {};
  if (testDatabaseUrl) {
    superUrl = testDatabaseUrl;
  } else {
    const dir = mkdtempSync(path.join(tmpdir(), "agent-ledger-test-"));
    chmodSync(dir, 0o755); // the server may run as the OS user postgres
    const state = newClusterState(await freePort());
    const pgData = path.join(dir, "pg");
    await initCluster(pgData, state.superPassword);
    const child = await startPostmaster({
      pgData,
      port: state.port,
      logFile: path.join(dir, "postgres.log"),
      superPassword: state.superPassword,
      settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off" },
    });
    superUrl = clusterUrls(state, "postgres").superUrl;
    stopServer = async () => {
      if (child.pid) await stopPostmaster(child.pid);
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const template = `agent_ledger_tpl_${process.pid}`;
  await provisionRoles(superUrl, TEST_CREDENTIALS);
  await dropDatabase(superUrl, template);
  await createDatabase(superUrl, template);
  await migrateDatabase(
    databaseUrl(superUrl, template, OWNER_ROLE, TEST_CREDENTIALS.ownerPassword),
  );
  return {
    cluster: { superUrl, credentials: TEST_CREDENTIALS, template },
    stop: async () => {
      await dropDatabase(superUrl, template).catch(() => undefined);
      await stopServer();
    },
  };
}

export function databaseUrl(superUrl: string, database: string, role: string, password: string) {
  return withCredentials(superUrl, role, password, database);
}

export type TestDatabaseUrls = {
  name: string;
  superUrl: string;
  ownerUrl: string;
  appUrl: string;
};

/** A fresh database copied from the migrated template. */
export async function createTestDatabaseFrom(
  cluster: TestCluster,
  label: string,
): Promise<TestDatabaseUrls> {
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .slice(0, 30);
  const name = `t_${slug}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await createDatabase(cluster.superUrl, name, cluster.template);
      break;
    } catch (err) {
      // Two files copying the template at the same moment can collide; try again.
      if (attempt >= 20 || !/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
  const superUrl = withCredentials(
    cluster.superUrl,
    decodeURIComponent(new URL(cluster.superUrl).username),
    decodeURIComponent(new URL(cluster.superUrl).password),
    name,
  );
  return {
    name,
    superUrl,
    ownerUrl: databaseUrl(cluster.superUrl, name, OWNER_ROLE, cluster.credentials.ownerPassword),
    appUrl: databaseUrl(cluster.superUrl, name, APP_ROLE, cluster.credentials.appPassword),
  };
}

export async function dropTestDatabase(cluster: TestCluster, name: string): Promise<void> {
  await dropDatabase(cluster.superUrl, name);
}
