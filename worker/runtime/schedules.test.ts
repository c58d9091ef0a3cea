// Schedules against a real database: publishing keeps an admin's pause, a tick enqueues each
// occurrence once whoever ticks, the missed policies from 10 occurrences behind, and pause and
// resume (under skip, no backfill).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { operator } from "../../lib/domain/access";
import { nextOccurrence, occurrenceKey } from "../../lib/domain/schedules";
import { type AgentSchedule, defineAgent } from "../../lib/sdk/define";
import { createSchedule } from "../../lib/server/commands/create-schedule";
import { deleteSchedule } from "../../lib/server/commands/delete-schedule";
import { setSchedulePaused } from "../../lib/server/commands/set-schedule-paused";
import { publishCatalog } from "./catalog";
import { publishSchedules, tickSchedules } from "./schedules";

const t = await setUpTestDatabase("schedules");
const admin = operator("user:admin@example.com");

function agentWith(name: string, schedules: AgentSchedule<{ n: number }>[]) {
  return defineAgent({
    name,
    input: z.object({ n: z.number() }),
    tools: {},
    schedules,
    run: async () => null,
  });
}

async function scheduleRow(agent: string, name: string) {
  const { rows } = await t.pool.query<{
    id: string;
    paused: boolean;
    cron: string;
    last_occurrence_at: Date | null;
    next_occurrence_at: Date | null;
  }>("select * from schedules where agent = $1 and name = $2", [agent, name]);
  const row = rows[0];
  if (!row) throw new Error(`no schedule ${agent}/${name}`);
  return row;
}

async function tasksOf(scheduleId: string) {
  const { rows } = await t.pool.query<{ enqueue_key: string }>(
    "select enqueue_key from tasks where enqueue_key like $1 order by enqueue_key",
    [`schedule:${scheduleId}:%`],
  );
  return rows.map((r) => r.enqueue_key);
}

describe("defineAgent schedules", () => {
  it("refuses a bad cron, time zone or input naming agent, schedule and field", () => {
    expect(() =>
      agentWith("bad-cron", [{ name: "a", cron: "61 * * * *", input: { n: 1 } }]),
    ).toThrow(/agent bad-cron: schedule "a": cron: /);
    expect(() =>
      agentWith("bad-tz", [
        { name: "a", cron: "* * * * *", timezone: "Europe/Pariss", input: { n: 1 } },
      ]),
    ).toThrow(/agent bad-tz: schedule "a": timezone: "Europe\/Pariss" is not an IANA time zone/);
    expect(() =>
      agentWith("bad-input", [{ name: "a", cron: "* * * * *", input: { n: "x" } as never }]),
    ).toThrow(/agent bad-input: schedule "a": input.n: /);
  });
});

describe("publishing and ticking", () => {
  it("publishes code schedules, keeps an admin's pause and removes the ones the code dropped", async () => {
    const v1 = agentWith("sched-pub", [
      { name: "keep", cron: "0 9 * * 1-5", timezone: "Europe/Paris", input: { n: 1 } },
      { name: "drop", cron: "0 * * * *", input: { n: 2 } },
    ]);
    await publishSchedules(t.pool, [v1], "w1");
    expect(
      (await setSchedulePaused(t.pool, admin, { agent: "sched-pub", name: "keep", paused: true }))
        .ok,
    ).toBe(true);
    const v2 = agentWith("sched-pub", [
      { name: "keep", cron: "30 9 * * 1-5", timezone: "Europe/Paris", input: { n: 1 } },
    ]);
    await publishSchedules(t.pool, [v2], "w2");
    const keep = await scheduleRow("sched-pub", "keep");
    expect(keep.paused).toBe(true);
    expect(keep.cron).toBe("30 9 * * 1-5");
    await expect(scheduleRow("sched-pub", "drop")).rejects.toThrow(/no schedule/);
    const removed = await deleteSchedule(t.pool, admin, { agent: "sched-pub", name: "keep" });
    expect(removed).toMatchObject({ ok: false, code: "conflict" });
  });

  it.each([
    ["skip", 0],
    ["run-once", 1],
    ["run-each", 10],
  ] as const)("missed %s from 10 occurrences behind enqueues %i", async (missed, expected) => {
    const agent = `sched-missed-${missed}`;
    // Hourly at a minute 30 minutes away from now: the latest occurrence is ≥ 30 min old.
    const minute = (new Date().getUTCMinutes() + 30) % 60;
    const cron = `${minute} * * * *`;
    const latest = new Date(
      (nextOccurrence(cron, "UTC", new Date()) ?? new Date()).getTime() - 3_600_000,
    );
    const behind = new Date(latest.getTime() - 10 * 3_600_000);
    await publishSchedules(
      t.pool,
      [agentWith(agent, [{ name: "hourly", cron, missed, input: { n: 1 } }])],
      "w",
    );
    await t.pool.query("update schedules set last_occurrence_at = $2 where agent = $1", [
      agent,
      behind,
    ]);
    const { id } = await scheduleRow(agent, "hourly");
    await tickSchedules(t.pool, [agent]);
    const keys = await tasksOf(id);
    expect(keys).toHaveLength(expected);
    if (missed === "run-once") expect(keys).toEqual([occurrenceKey(id, latest)]);
    const row = await scheduleRow(agent, "hourly");
    expect(row.last_occurrence_at?.toISOString()).toBe(latest.toISOString());
    expect(row.next_occurrence_at?.getTime()).toBe(latest.getTime() + 3_600_000);
    // Caught up: another tick enqueues nothing.
    await tickSchedules(t.pool, [agent]);
    expect(await tasksOf(id)).toHaveLength(expected);
    if (expected < 10) {
      const { rows } = await t.pool.query<{ data: { skipped: number } }>(
        "select data from ledger_entries where kind = 'schedule.missed' and data->>'schedule' = $1",
        [id],
      );
      expect(rows.map((r) => r.data.skipped)).toEqual([10 - expected]);
    }
  });

  it("enqueues an occurrence once when ticks race, and records schedule and occurrence", async () => {
    const agent = "sched-race";
    await publishCatalog(t.pool, [agentWith(agent, [])], "w");
    const created = await createSchedule(t.pool, admin, {
      agent,
      name: "every-second",
      cron: "* * * * * *",
      input: { n: 7 },
    });
    if (!created.ok) throw new Error(created.message);
    await new Promise((r) => setTimeout(r, 2_200));
    await Promise.all([1, 2, 3, 4].map(() => tickSchedules(t.pool, [agent])));
    const keys = await tasksOf(created.value.id);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys).size).toBe(keys.length);
    const { rows } = await t.pool.query<{ data: { schedule: { id: string; occurrence: string } } }>(
      "select e.data from ledger_entries e join tasks k on k.id = e.task_id where k.enqueue_key = $1",
      [keys[0]],
    );
    expect(rows[0]?.data.schedule).toMatchObject({ id: created.value.id, name: "every-second" });
    expect(keys[0]).toBe(
      occurrenceKey(created.value.id, new Date(rows[0]?.data.schedule.occurrence ?? 0)),
    );
  });

  it("a paused schedule enqueues nothing; resumed under skip it does not backfill", async () => {
    const agent = "sched-pause";
    await publishCatalog(t.pool, [agentWith(agent, [])], "w");
    const created = await createSchedule(t.pool, admin, {
      agent,
      name: "s",
      cron: "* * * * * *",
      input: { n: 1 },
    });
    if (!created.ok) throw new Error(created.message);
    const id = created.value.id;
    await new Promise((r) => setTimeout(r, 1_200));
    await tickSchedules(t.pool, [agent]);
    expect(
      await setSchedulePaused(t.pool, admin, { agent, name: "s", paused: true }),
    ).toMatchObject({ ok: true });
    const atPause = (await tasksOf(id)).length;
    expect(atPause).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 3_200));
    await tickSchedules(t.pool, [agent]);
    expect(await tasksOf(id)).toHaveLength(atPause);
    expect(
      await setSchedulePaused(t.pool, admin, { agent, name: "s", paused: true }),
    ).toMatchObject({
      ok: false,
      code: "conflict",
    });
    const resumed = await setSchedulePaused(t.pool, admin, { agent, name: "s", paused: false });
    if (!resumed.ok) throw new Error(resumed.message);
    // The pause's occurrences (3 s of them, within the on-time grace) are not enqueued.
    const resumedAt = resumed.value.updatedAt.getTime() - 500;
    await tickSchedules(t.pool, [agent]);
    await new Promise((r) => setTimeout(r, 1_100));
    await tickSchedules(t.pool, [agent]);
    const after = await tasksOf(id);
    const occurrences = after
      .slice(atPause)
      .map((k) => Date.parse(k.split(":").slice(2).join(":")));
    expect(occurrences.length).toBeGreaterThanOrEqual(1);
    for (const o of occurrences) expect(o).toBeGreaterThan(resumedAt);
    const { rows } = await t.pool.query<{ kind: string; actor: string }>(
      "select kind, actor from ledger_entries where kind like 'schedule.%' and data->'after'->>'id' = $1 order by id",
      [id],
    );
    expect(rows.map((r) => r.kind)).toEqual([
      "schedule.created",
      "schedule.paused",
      "schedule.resumed",
    ]);
    expect(rows.every((r) => r.actor === "user:admin@example.com")).toBe(true);
  });
});
