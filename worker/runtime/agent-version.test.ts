// The agent code version: derived from what the worker publishes and run's source unless the
// agent says its own; published in agent_catalog, recorded with each attempt's start, and read back
// by the task page (which version ran each attempt, and where it changed) and the agents list.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withTransaction } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { defineAgent, defineTool } from "../../lib/sdk/define";
import { appendLedger, taskStream } from "../../lib/server/ledger/append-ledger";
import { getTaskDetail } from "../../lib/server/queries/get-task-detail";
import { listAgents } from "../../lib/server/queries/list-agents";
import { catalogEntry } from "./catalog";
import { runtimeTestKit, setGlobalPolicy } from "./test-support";
import { startWorker } from "./worker";

const t = await setUpTestDatabase("agent_version");
const kit = runtimeTestKit(t.pool);
const ops = testViewer("ops");

const notify = (flags: { providerIdempotent?: boolean } = {}) =>
  defineTool({
    name: "notify",
    input: z.object({ to: z.string() }),
    intent: (a) => ({ to: a.to }),
    execute: async () => ({ ok: true }),
    ...flags,
  });

const mailer = (
  opts: { version?: string; providerIdempotent?: boolean; greeting?: "hello" | "hi" } = {},
) =>
  defineAgent({
    name: "mailer",
    input: z.object({ to: z.string() }),
    tools: { notify: notify({ providerIdempotent: opts.providerIdempotent }) },
    version: opts.version,
    run:
      opts.greeting === "hi"
        ? async (ctx, input) => ctx.tool("notify", { to: `hi ${input.to}` })
        : async (ctx, input) => ctx.tool("notify", { to: `hello ${input.to}` }),
  });

describe("the derived agent version", () => {
  it("is sha- and 8 hex digits, the same for the same code on every call", () => {
    const version = catalogEntry(mailer()).version;
    expect(version).toMatch(/^sha-[0-9a-f]{8}$/);
    expect(catalogEntry(mailer()).version).toBe(version);
  });

  it("changes when a tool flag changes", () => {
    expect(catalogEntry(mailer({ providerIdempotent: true })).version).not.toBe(
      catalogEntry(mailer()).version,
    );
  });

  it("changes when the run function's source changes", () => {
    expect(catalogEntry(mailer({ greeting: "hi" })).version).not.toBe(
      catalogEntry(mailer()).version,
    );
  });

  it("gives way to the version the agent declares", () => {
    expect(catalogEntry(mailer({ version: "1.4.0" })).version).toBe("1.4.0");
    expect(catalogEntry(mailer({ version: "1.4.0", greeting: "hi" })).version).toBe("1.4.0");
  });

  it("refuses a declared version with spaces or nothing in it", () => {
    expect(() => mailer({ version: "1.4 beta" })).toThrow(/agent mailer: version "1.4 beta"/);
    expect(() => mailer({ version: "" })).toThrow(/must be 1 to 64/);
  });
});

describe("versions on attempts", () => {
  it("records which version ran each attempt, and the task detail marks the change", async () => {
    await setGlobalPolicy(t.pool, { maxAttempts: 3, backoffMs: 200, attemptTimeoutMs: 5_000 });
    let failFirst = true;
    const flaky = (version?: string) =>
      defineAgent({
        name: "versioned",
        input: z.object({}),
        tools: {},
        version,
        run: async () => {
          if (failFirst) {
            failFirst = false;
            throw new Error("the first attempt fails");
          }
          return { done: true };
        },
      });
    const before = flaky();
    const derived = catalogEntry(before).version;
    const id = await kit.enqueue("versioned", {});

    // The first release runs attempt 1, which fails; it stops before the retry is due.
    let firstDone: () => void = () => {};
    const attempted = new Promise<void>((resolve) => {
      firstDone = resolve;
    });
    const first = await startWorker({
      pool: t.pool,
      agents: [before],
      concurrency: 1,
      pollMs: 20,
      log: () => {},
      onAttempt: () => firstDone(),
    });
    await attempted;
    await first.stop(1_000);
    expect((await kit.task(id)).status).toBe("retry_wait");

    // The next release, with a declared version, runs attempt 2.
    const second = await startWorker({
      pool: t.pool,
      agents: [flaky("1.4.0")],
      concurrency: 1,
      pollMs: 20,
      log: () => {},
    });
    try {
      expect((await kit.settle(id)).status).toBe("succeeded");
    } finally {
      await second.stop(1_000);
    }

    // Each start, on its attempt's first entry, records the version that ran it.
    const started = (await kit.entries(id)).flatMap((e) => {
      const data = e.data as { attemptStarted?: unknown } | null;
      return data?.attemptStarted ? [data.attemptStarted] : [];
    });
    expect(started).toEqual([
      { attempt: 1, agent: "versioned", version: derived, at: expect.any(String) },
      { attempt: 2, agent: "versioned", version: "1.4.0", at: expect.any(String) },
    ]);

    const detail = await getTaskDetail(t.db, ops, id);
    expect(detail?.attempts).toEqual([
      expect.objectContaining({ attempt: 1, version: derived, versionChangedFrom: null }),
      expect.objectContaining({ attempt: 2, version: "1.4.0", versionChangedFrom: derived }),
    ]);
    expect(detail?.attempts.map((a) => a.worker)).toEqual([
      `worker:${first.id}`,
      `worker:${second.id}`,
    ]);

    // The catalog lists the version the last worker to start published.
    const agents = await listAgents(t.pool, ops);
    expect(agents.find((a) => a.name === "versioned")?.version).toBe("1.4.0");
  });

  it("an attempt recorded before versions reads as not recorded, and is no change", async () => {
    const id = await kit.enqueue("older", {}, { held: true });
    await withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(id), [
        { kind: "attempt.started", actor: "worker:old", taskId: id, data: { attempt: 1 } },
        {
          kind: "attempt.started",
          actor: "worker:new",
          taskId: id,
          data: { attempt: 2, version: "2.0.0" },
        },
      ]),
    );
    const detail = await getTaskDetail(t.db, ops, id);
    expect(detail?.attempts.map((a) => [a.version, a.versionChangedFrom])).toEqual([
      [null, null],
      ["2.0.0", null],
    ]);
  });
  it("reads attempts in both forms: attempt.started entries, and starts folded into a first entry", async () => {
    const id = await kit.enqueue("older", {}, { held: true });
    await withTransaction(t.pool, (c) =>
      appendLedger(c, taskStream(id), [
        { kind: "attempt.started", actor: "worker:old", taskId: id, data: { attempt: 1 } },
        { kind: "attempt.failed", actor: "worker:old", taskId: id, data: { attempt: 1 } },
        {
          kind: "effect.started",
          actor: "worker:new",
          taskId: id,
          data: {
            attempt: 2,
            attemptStarted: {
              attempt: 2,
              agent: "older",
              version: "2.0.0",
              at: "2026-12-01T10:00:00.000Z",
            },
          },
        },
        {
          kind: "worker.lost",
          actor: "worker:reaper",
          taskId: id,
          data: {
            attempt: 3,
            attemptStarted: {
              attempt: 3,
              agent: "older",
              at: "2026-12-01T11:00:00.000Z",
              actor: "worker:gone",
            },
          },
        },
      ]),
    );
    const detail = await getTaskDetail(t.db, ops, id);
    expect(detail?.attempts.map((a) => [a.attempt, a.worker, a.version])).toEqual([
      [1, "worker:old", null],
      [2, "worker:new", "2.0.0"],
      [3, "worker:gone", null],
    ]);
    // A folded start is dated by the claim, not by the entry it rides on.
    expect(detail?.attempts[1]?.startedAt).toBe("2026-12-01T10:00:00.000Z");
  });
});
