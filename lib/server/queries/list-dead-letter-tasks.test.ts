import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { deadLetterSearchSchema } from "../review/dead-letter-filter";
import { listDeadLetterTasks } from "./list-dead-letter-tasks";
import { listDeadLetters } from "./list-dead-letters";
import { parseSearchParams } from "./parse-search-params";

const t = await setUpTestDatabase("dead-letter-tasks");
const ops = testViewer("ops");

async function dead(opts: {
  agent?: string;
  reason?: string;
  message: string | null;
  ageMinutes?: number;
  tool?: string;
}): Promise<string> {
  const { rows } = await t.pool.query<{ id: string }>(
    `insert into tasks (agent, input, status, dead_reason, last_error, attempts, status_changed_at, created_by)
     values ($1, '{}', 'dead', $2, $3::jsonb, 3, now() - make_interval(mins => $4), 't') returning id`,
    [
      opts.agent ?? "refund",
      opts.reason ?? "exhausted",
      opts.message === null ? null : JSON.stringify({ message: opts.message }),
      opts.ageMinutes ?? 0,
    ],
  );
  const id = rows[0]?.id ?? "";
  if (opts.tool) {
    await t.pool.query(
      `insert into steps (task_id, seq, kind, name, status, attempt) values
       ($1, 1, 'tool', 'lookup', 'started', 1), ($1, 2, 'tool', $2, 'started', 1)`,
      [id, opts.tool],
    );
  }
  return id;
}

const search = (raw: Record<string, string>) => {
  const parsed = parseSearchParams(deadLetterSearchSchema, raw);
  if (!parsed.ok) throw new Error(parsed.errors.join(" "));
  return parsed.data;
};

const ids = async (raw: Record<string, string>) =>
  (await listDeadLetterTasks(t.db, ops, search(raw))).tasks.map((x) => x.id).sort();

describe("dead-letter groups and the filtered list", () => {
  it("groups by fingerprint and filters by it, reason, agent, tool and age, in SQL", async () => {
    const a = await dead({ message: "refund re_123 failed: 502", tool: "issue-refund" });
    const b = await dead({
      message: "refund re_9 failed: 503",
      tool: "issue-refund",
      ageMinutes: 120,
    });
    const other = await dead({ message: "card declined for ann@example.com", tool: "charge" });
    const email = await dead({ agent: "invoice-reminder", reason: "timeout", message: "smtp 421" });
    await t.pool.query("insert into tasks (agent, input, created_by) values ('refund', '{}', 't')");

    const groups = await listDeadLetters(t.db, ops);
    const exhausted = groups.groups.find((g) => g.reason === "exhausted");
    expect(exhausted?.errors[0]).toMatchObject({
      fingerprint: "refund <id> failed: <n>",
      count: 2,
    });
    expect(exhausted?.errors).toHaveLength(2);

    expect(await ids({ fingerprint: "refund <id> failed: <n>" })).toEqual([a, b].sort());
    expect(await ids({ reason: "timeout" })).toEqual([email]);
    expect(await ids({ agent: "refund" })).toEqual([a, b, other].sort());
    expect(await ids({ tool: "charge" })).toEqual([other]);
    expect(await ids({ age: "gt24h" })).toEqual([]);
    expect(await ids({ fingerprint: "refund <id> failed: <n>", age: "lt1h" })).toEqual([a]);

    const page = await listDeadLetterTasks(t.db, ops, search({ agent: "refund" }));
    expect(page.matching).toBe(3);
    expect(page.tasks.find((x) => x.id === a)).toMatchObject({
      agent: "refund",
      reason: "exhausted",
      lastError: "refund re_123 failed: 502",
      tool: "issue-refund",
      attempts: 3,
      version: 1,
    });
  });

  it("knows a task's last tool however it got there: steps before it died, after, or a new death", async () => {
    const toolOf = async (id: string) =>
      (
        await t.pool.query<{ dead_tool: string | null }>(
          "select dead_tool from tasks where id = $1",
          [id],
        )
      ).rows[0]?.dead_tool;
    // Journaled while running, then dead-lettered: the move to dead records the last tool.
    const { rows } = await t.pool.query<{ id: string }>(
      "insert into tasks (agent, input, created_by) values ('refund', '{}', 't') returning id",
    );
    const id = rows[0]?.id ?? "";
    await t.pool.query(
      `insert into steps (task_id, seq, kind, name, status, attempt) values
       ($1, 1, 'tool', 'lookup', 'started', 1), ($1, 2, 'model', 'plan', 'started', 1), ($1, 3, 'tool', 'refund', 'started', 1)`,
      [id],
    );
    expect(await toolOf(id)).toBeNull();
    await t.pool.query(
      "update tasks set status = 'dead', dead_reason = 'exhausted', last_error = '{\"message\":\"x\"}' where id = $1",
      [id],
    );
    expect(await toolOf(id)).toBe("refund");
    expect(await ids({ tool: "refund" })).toContain(id);
    // Leaving dead clears it; dying again after more steps records the newer last tool.
    await t.pool.query("update tasks set status = 'queued', dead_reason = null where id = $1", [
      id,
    ]);
    expect(await toolOf(id)).toBeNull();
    await t.pool.query(
      "insert into steps (task_id, seq, kind, name, status, attempt) values ($1, 4, 'tool', 'notify', 'started', 2)",
      [id],
    );
    await t.pool.query(
      "update tasks set status = 'dead', dead_reason = 'exhausted' where id = $1",
      [id],
    );
    expect(await toolOf(id)).toBe("notify");
    expect(await ids({ tool: "refund" })).not.toContain(id);
    // A step journaled for a task already dead (a dead task written first) refreshes it.
    const late = await dead({ message: "y" });
    expect(await toolOf(late)).toBeNull();
    await t.pool.query(
      "insert into steps (task_id, seq, kind, name, status, attempt) values ($1, 1, 'tool', 'charge', 'started', 1)",
      [late],
    );
    expect(await toolOf(late)).toBe("charge");
  });

  it("pages with a cursor, most recently dead first, without skipping or repeating", async () => {
    for (let i = 0; i < 5; i++) await dead({ agent: "pager", message: `e${i}`, ageMinutes: i });
    const seen: string[] = [];
    let before: string | undefined;
    do {
      const page = await listDeadLetterTasks(
        t.db,
        ops,
        search(before ? { agent: "pager", before } : { agent: "pager" }),
        2,
      );
      seen.push(...page.tasks.map((x) => x.lastError ?? ""));
      before = page.olderBefore ?? undefined;
    } while (before);
    expect(seen).toEqual(["e0", "e1", "e2", "e3", "e4"]);
  });

  it("says what was wrong with a bad address", () => {
    const parsed = parseSearchParams(deadLetterSearchSchema, {
      reason: "bored",
      age: "old",
      before: "x",
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.join(" ")).toMatch(/"reason" must be one of: exhausted/);
    expect(parsed.errors.join(" ")).toMatch(/"age" must be one of: lt1h/);
    expect(parsed.errors.join(" ")).toMatch(/"before" is not a page position/);
  });

  it("refuses a viewer without tasks:read", async () => {
    await expect(
      listDeadLetterTasks(t.db, testTokenViewer(["ledger:read"], "reader"), search({})),
    ).rejects.toMatchObject({ status: 403 });
  });
});
