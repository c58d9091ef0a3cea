// The e2e web server process (web/server.ts, started by e2e/server.ts): where its pid is kept,
// and its resident memory as the kernel counts it.
import { readFileSync } from "node:fs";
import { E2E_DB_FILE } from "./settings";

/** Next to the database file, so runs on different ports keep their own. */
export const E2E_WEB_PID_FILE = E2E_DB_FILE.replace(/\.json$/, ".web.pid");

export function webServerPid(): number {
  const pid = Number(readFileSync(E2E_WEB_PID_FILE, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 0)
    throw new Error(`no web server pid in ${E2E_WEB_PID_FILE}`);
  return pid;
}

/** VmRSS of /proc/<pid>/status, in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/^VmRSS:\s+(\d+)\s+kB$/m.exec(status)?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return kib / 1024;
}
