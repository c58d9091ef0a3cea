// The CLI's pieces that need no database, in-process: every command's help page through the
// real dispatcher, option and argument parsing, progress on stderr, and CSV quoting.
import { afterEach, describe, expect, it, vi } from "vitest";
import { csvField, csvRecord } from "./export";
import { commands, main } from "./program";
import {
  isoInstant,
  type ProgressStream,
  parseCommandLine,
  parseOption,
  startProgress,
  UsageError,
  wholeNumber,
} from "./shared";

afterEach(() => {
  vi.restoreAllMocks();
});

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, "log").mockImplementation((...a: unknown[]) => void out.push(a.join(" ")));
  vi.spyOn(console, "error").mockImplementation((...a: unknown[]) => void err.push(a.join(" ")));
  const code = await main(argv);
  vi.restoreAllMocks();
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

describe("help", () => {
  const NEW = ["enqueue", "tasks", "dead-letters", "replay", "approve", "reject", "export"];

  it("lists every command, and each command's page states its synopsis, options and exit codes", async () => {
    const top = await run(["--help"]);
    expect(top.code).toBe(0);
    for (const c of commands) expect(top.stdout).toMatch(new RegExp(`^  ${c.name} +\\S`, "m"));
    for (const name of NEW) expect(commands.map((c) => c.name)).toContain(name);

    for (const c of commands) {
      const loaded = await c.load();
      expect({ name: loaded.name, summary: loaded.summary }, c.name).toEqual({
        name: c.name,
        summary: c.summary,
      });
      const page = await run([c.name, "--help"]);
      expect(page.code, c.name).toBe(0);
      expect(page.stdout, c.name).toMatch(new RegExp(`^agent-ledger ${c.name}( |$)`));
      expect(page.stdout, c.name).toMatch(/^Exit codes: 0 /m);
      expect(page.stdout, c.name).toContain("-h, --help");
    }
  });

  it("gives tasks list and tasks show pages of their own", async () => {
    const show = await run(["tasks", "show", "-h"]);
    expect(show.stdout).toMatch(/^agent-ledger tasks show ID \[--json\]/);
    expect(show.stdout).not.toContain("--status");
    const list = await run(["tasks", "list", "--help"]);
    expect(list.stdout).toMatch(
      /^agent-ledger tasks list \[--status S\] \[--agent A\] \[--limit N\]/,
    );
  });

  it("documents the version default and the two-person rule where they apply", async () => {
    for (const name of ["replay", "approve", "reject"]) {
      const page = await run([name, "--help"]);
      expect(page.stdout, name).toContain("default: the version read just before");
    }
    expect((await run(["replay", "--help"])).stdout).toContain("second, different reviewer");
    expect((await run(["export", "--help"])).stdout).toContain("RFC 4180");
  });
});

describe("argument parsing", () => {
  it("takes exactly the positionals named and says which is missing or extra", () => {
    const opts = { json: { type: "boolean" } } as const;
    expect(parseCommandLine(["abc", "--json"], opts, ["ID"] as const)).toEqual({
      values: { json: true },
      args: { ID: "abc" },
    });
    expect(() => parseCommandLine(["--json"], opts, ["ID"] as const)).toThrow(
      new UsageError("missing ID"),
    );
    expect(() => parseCommandLine(["a", "b"], opts, ["ID"] as const)).toThrow(
      new UsageError('unexpected argument "b"'),
    );
    expect(() => parseCommandLine(["a", "--frob"], opts, ["ID"] as const)).toThrow(
      /Unknown option '--frob'/,
    );
  });

  it("reads whole numbers and instants, naming the option on failure", () => {
    expect(parseOption(wholeNumber(1, 10), "7", "--limit")).toBe(7);
    expect(() => parseOption(wholeNumber(1, 10), "0", "--limit")).toThrow(
      "--limit: must be from 1 to 10",
    );
    expect(() => parseOption(wholeNumber(1), "2.5", "--version")).toThrow(
      "--version: must be a whole number",
    );
    expect(parseOption(isoInstant, "2025-06-01", "--from").toISOString()).toBe(
      "2025-06-01T00:00:00.000Z",
    );
    expect(parseOption(isoInstant, "2025-06-01T11:00:00+02:00", "--from").toISOString()).toBe(
      "2025-06-01T09:00:00.000Z",
    );
    expect(() => parseOption(isoInstant, "2025-06-01T09:00:00", "--from")).toThrow(
      /^--from: must be an ISO 8601 time with a zone/,
    );
  });

  it("exits 2 with the page when an option is bad, 2 for an unknown command", async () => {
    const bad = await run(["tasks", "list", "--limit", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^agent-ledger tasks: --limit: must be from 1 to 1000/);
    expect(bad.stderr).toContain("agent-ledger tasks list [--status S]");
    expect((await run(["nope"])).code).toBe(2);
  });
});

describe("progress", () => {
  function recorder(isTTY: boolean): ProgressStream & { text: () => string } {
    const chunks: string[] = [];
    return { isTTY, write: (s: string) => chunks.push(s), text: () => chunks.join("") };
  }

  it("is off when stderr is not a terminal unless forced, and off with quiet", () => {
    const pipe = recorder(false);
    const off = startProgress({ verb: "exported", unit: "entries", stream: pipe });
    off.update(5);
    off.finish();
    expect(off.enabled).toBe(false);
    expect(pipe.text()).toBe("");
    const tty = recorder(true);
    const quiet = startProgress({ verb: "v", unit: "u", quiet: true, forced: true, stream: tty });
    quiet.update(1);
    quiet.finish();
    expect(tty.text()).toBe("");
  });

  it("writes throttled lines into a log, with the percentage of a counted total", () => {
    const pipe = recorder(false);
    let clock = 0;
    const p = startProgress({
      verb: "exported",
      unit: "entries",
      total: 3000,
      forced: true,
      stream: pipe,
      now: () => clock,
    });
    p.update(1000);
    clock = 500;
    p.update(2000); // within the second: not written
    clock = 1200;
    p.update(2500);
    p.finish();
    p.update(3000);
    expect(pipe.text()).toBe(
      [
        "exported 1,000 of 3,000 entries (33%)",
        "exported 2,500 of 3,000 entries (83%)",
        "exported 2,500 of 3,000 entries (83%)",
        "",
      ].join("\n"),
    );
  });

  it("redraws one line on a terminal and ends it at the finish", () => {
    const tty = recorder(true);
    let clock = 0;
    const p = startProgress({ verb: "verified", unit: "entries", stream: tty, now: () => clock });
    p.update(10);
    clock = 150;
    p.update(20);
    p.note("done with the first part");
    p.finish();
    expect(tty.text()).toBe(
      "\rverified 10 entries\x1b[K\rverified 20 entries\x1b[K\r\x1b[Kdone with the first part\n\rverified 20 entries\x1b[K\n",
    );
  });
});

describe("CSV (RFC 4180)", () => {
  it("quotes fields with commas, quotes or line breaks, doubles quotes, and ends records with CRLF", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField(null)).toBe("");
    expect(csvField(42)).toBe("42");
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField("two\nlines")).toBe('"two\nlines"');
    expect(csvField("cr\r")).toBe('"cr\r"');
    expect(csvRecord(["a", null, '{"k": "v, w"}'])).toBe('a,,"{""k"": ""v, w""}"\r\n');
  });
});
