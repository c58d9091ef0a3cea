// The run file the `demo` commands read npm start's addresses from: parsed with zod, and only
// believed while the launcher that wrote it runs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { liveRun, readRunFile, writeRunFile } from "./run-file";

const dir = mkdtempSync(path.join(tmpdir(), "agent-ledger-run-file-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = path.join(dir, "run.json");

const demo = {
  smtpUrl: "smtp://127.0.0.1:40001",
  paymentsUrl: "http://127.0.0.1:40002",
  webhooksUrl: "http://127.0.0.1:40003",
};

describe("npm start's run file", () => {
  it("is read back as written while its launcher runs", () => {
    writeRunFile({ launcher: process.pid, receivers: 1, url: "http://localhost:3000", demo }, file);
    expect(liveRun(file)).toEqual({
      launcher: process.pid,
      receivers: 1,
      url: "http://localhost:3000",
      demo,
    });
  });

  it("is stale once its launcher is gone: its addresses are not used", () => {
    // A pid that has just exited (and is not reused within these lines).
    const gone = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], {
      encoding: "utf8",
    });
    const pid = Number(gone.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    writeRunFile({ launcher: pid, url: "http://localhost:3000", demo }, file);
    expect(readRunFile(file)?.launcher).toBe(pid);
    expect(liveRun(file)).toBeUndefined();
  });

  it("is ignored when missing or not what npm start writes", () => {
    rmSync(file, { force: true });
    expect(liveRun(file)).toBeUndefined();
    writeFileSync(file, "{not json");
    expect(liveRun(file)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ launcher: process.pid, demo: { paymentsUrl: 4242 } }));
    expect(liveRun(file)).toBeUndefined();
  });
});
