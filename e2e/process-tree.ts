// A process and everything it started, read from /proc (Linux): for the tests that stop a
// process the way a supervisor does and then check that nothing it started is left. A process
// is named by its pid and its start time, so a pid the kernel hands to someone else later is
// not mistaken for one of ours.
import { readdirSync, readFileSync } from "node:fs";

export type Proc = { pid: number; ppid: number; start: string; command: string };

function read(pid: number): Proc | undefined {
  try {
    // "pid (comm) state ppid … starttime(22nd) …"; comm may hold spaces, so split after ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    return { pid, ppid: Number(fields[1]), start: fields[19] ?? "", command };
  } catch {
    return undefined;
  }
}

/** The processes below `pid`, children first, then theirs. */
export function descendants(pid: number): Proc[] {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => read(Number(name)))
    .filter((p): p is Proc => p !== undefined);
  const found: Proc[] = [];
  let parents = new Set([pid]);
  while (parents.size > 0) {
    const next = all.filter((p) => parents.has(p.ppid));
    found.push(...next);
    parents = new Set(next.map((p) => p.pid));
  }
  return found;
}

/** Whether this very process (same pid, same start) still runs; a zombie counts as gone. */
export function stillRunning(proc: Proc): boolean {
  const now = read(proc.pid);
  if (!now || now.start !== proc.start) return false;
  try {
    const state = readFileSync(`/proc/${proc.pid}/stat`, "utf8");
    return state.slice(state.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
