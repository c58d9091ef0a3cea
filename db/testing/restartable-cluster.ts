// A PostgreSQL cluster of one test file's own, which the test may restart or stop under running
// code (the shared vitest cluster must never go down under other files). It is always a fresh
// embedded cluster, even when TEST_DATABASE_URL points elsewhere: only a server we started can
// be restarted. fsync is off (nothing here must survive the machine) but commits stay
// synchronous, so an immediate shutdown loses no commit a client was told about.
import { execFile } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  type ClusterUrls,
  clusterUrls,
  freePort,
  initCluster,
  newClusterState,
  postgresBinaries,
  postgresUserIds,
  readPostmasterPid,
  startPostmaster,
  stopPostmaster,
} from "../embedded";
import { migrateDatabase } from "../migrate";
import { createDatabase, provisionRoles } from "../provision";

const run = promisify(execFile);

export type RestartableCluster = ClusterUrls & {
  /** `pg_ctl restart -m <mode>`: every connection is cut; returns once it accepts again. */
  restart: (mode: "fast" | "immediate") => Promise<void>;
  /** `pg_ctl stop -m fast`: the server stays down until `start()`. */
  stopServer: () => Promise<void>;
  start: () => Promise<void>;
  destroy: () => Promise<void>;
};

export async function startRestartableCluster(): Promise<RestartableCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-ledger-restart-"));
  chmodSync(dir, 0o755); // the server may run as the OS user postgres
  const ids = postgresUserIds();
  const state = newClusterState(await freePort());
  const pgData = path.join(dir, "pg");
  // pg_ctl runs as the server's user and appends its output here, so that user owns it.
  const pgCtlLog = path.join(dir, "pg_ctl.log");
  writeFileSync(pgCtlLog, "");
  if (ids.uid !== undefined && ids.gid !== undefined) chownSync(pgCtlLog, ids.uid, ids.gid);
  await initCluster(pgData, state.superPassword);
  const startOptions = {
    pgData,
    port: state.port,
    logFile: path.join(dir, "postgres.log"),
    superPassword: state.superPassword,
    settings: { fsync: "off", full_page_writes: "off" },
  };
  await startPostmaster(startOptions);
  const database = "agent_ledger";
  const urls = clusterUrls(state, database);
  await provisionRoles(urls.superUrl, state);
  await createDatabase(urls.superUrl, database);
  await migrateDatabase(urls.ownerUrl);

  const { pg_ctl } = await postgresBinaries();
  const pgCtl = async (args: string[]) => {
    try {
      await run(pg_ctl, [...args, "-D", pgData, "-w", "-t", "60"], {
        ...ids,
        env: { ...process.env, LC_ALL: "C" },
      });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`pg_ctl ${args.join(" ")} failed: ${e.stderr || e.message}`);
    }
  };

  return {
    ...urls,
    // restart re-uses the options the server was started with (postmaster.opts).
    restart: (mode) => pgCtl(["restart", "-m", mode, "-l", pgCtlLog]),
    stopServer: () => pgCtl(["stop", "-m", "fast"]),
    start: async () => {
      await startPostmaster(startOptions);
    },
    destroy: async () => {
      const running = readPostmasterPid(pgData);
      if (running) await stopPostmaster(running.pid);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
