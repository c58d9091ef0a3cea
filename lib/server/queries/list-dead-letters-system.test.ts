// The dead-letter screen with the alert sink unreachable: the groups, the cards and the list
// count the agents' dead letters (60 refunds), the alert deliveries are one line per destination
// and counted in only when asked for (?system=include, or their agent named); every count on
// the screen comes from one snapshot.
import { describe, expect, it } from "vitest";
import {
  OUTAGE_URL,
  REFUND_ERROR,
  stageAlertOutage,
  UNREACHABLE,
} from "../../../db/testing/alert-outage";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testViewer } from "../../auth/testing";
import { deadLetterSearchSchema } from "../review/dead-letter-filter";
import { readDeadLettersScreen } from "./dead-letters-screen";
import { getOverview } from "./get-overview";
import { listDeadLetters } from "./list-dead-letters";

const t = await setUpTestDatabase("dead-letters-system");
const reviewer = testViewer("reviewer");
const outage = await stageAlertOutage(t.pool, { deliveries: 300, refunds: 60 });

describe("dead letters with the alert sink unreachable", () => {
  it("groups and counts the 60 refunds; the failing destination is one line", async () => {
    const screen = await readDeadLettersScreen(t.db, reviewer, deadLetterSearchSchema.parse({}));
    expect(screen.includesSystem).toBe(false);
    expect(screen.groups.total).toBe(60);
    const exhausted = screen.groups.groups.find((g) => g.reason === "exhausted");
    expect(exhausted?.count).toBe(60);
    expect(exhausted?.errors).toEqual([
      expect.objectContaining({ count: 60, message: REFUND_ERROR }),
    ]);
    expect(screen.list.matching).toBe(60);
    expect(screen.list.tasks.every((task) => task.agent === "refund")).toBe(true);
    expect(screen.alerts.destinations).toEqual([
      expect.objectContaining({
        ruleId: outage.ruleId,
        host: "127.0.0.1:4343",
        undelivered: 300,
        lastError: UNREACHABLE,
      }),
    ]);
    // The overview counts the same: the agents' dead letters, the alerts apart.
    const overview = await getOverview(t.pool, reviewer);
    expect(overview.deadByReason.find((r) => r.reason === "exhausted")?.count).toBe(60);
    expect(overview.undeliveredAlerts).toBe(300);
    const waiting = overview.waiting.find((w) => w.kind === "dead_letter");
    expect(waiting).toMatchObject({ count: 60, oldest: { agent: "refund" } });
    const text = JSON.stringify(screen);
    expect(text).not.toContain("s3cret");
    expect(text).not.toContain("T0KEN");
    expect(text).not.toContain(OUTAGE_URL);
  });

  it("counts them in when asked, by the toggle or by naming their agent", async () => {
    const all = await readDeadLettersScreen(
      t.db,
      reviewer,
      deadLetterSearchSchema.parse({ system: "include" }),
    );
    expect(all.includesSystem).toBe(true);
    expect(all.groups.total).toBe(360);
    expect(all.list.matching).toBe(360);
    const exhausted = all.groups.groups.find((g) => g.reason === "exhausted");
    expect(exhausted?.errors.map((e) => [e.fingerprint, e.count])).toEqual([
      [expect.stringContaining("receiver unreachable"), 300],
      [expect.any(String), 60],
    ]);
    const named = await readDeadLettersScreen(
      t.db,
      reviewer,
      deadLetterSearchSchema.parse({ agent: "alert-delivery" }),
    );
    expect(named.list.matching).toBe(300);
    expect(deadLetterSearchSchema.safeParse({ system: "yes" }).success).toBe(false);
  });

  it("a group holding both kinds counts and dates only the agents' part unless asked", async () => {
    // An agent task that failed with the alert's very error, older than every delivery.
    await t.pool.query(
      `insert into tasks (agent, input, status, dead_reason, last_error, status_changed_at, created_by)
       values ('notifier', '{}', 'dead', 'exhausted', $1::jsonb, now() - interval '1 day', 't')`,
      [JSON.stringify({ message: UNREACHABLE })],
    );
    const own = await listDeadLetters(t.db, reviewer);
    const group = own.groups
      .find((g) => g.reason === "exhausted")
      ?.errors.find((e) => e.message === UNREACHABLE);
    expect(group?.count).toBe(1);
    expect(group?.oldestAt).toBe(group?.newestAt);
    const all = await listDeadLetters(t.db, reviewer, { includeSystem: true });
    expect(
      all.groups
        .find((g) => g.reason === "exhausted")
        ?.errors.find((e) => e.message === UNREACHABLE)?.count,
    ).toBe(301);
    await t.pool.query(
      "update tasks set status = 'cancelled', dead_reason = null where agent = 'notifier'",
    );
  });

  it("one count per screen: the cards, the headings and the list agree while tasks die", async () => {
    // Tasks keep dying while the screen is read; every number still comes from one snapshot.
    let reading = true;
    let died = 0;
    const writer = (async () => {
      while (reading) {
        await t.pool.query(
          `insert into tasks (agent, input, status, dead_reason, last_error, status_changed_at, created_by)
           values ('refund', '{}', 'dead', 'exhausted', $1::jsonb, now(), 't')`,
          [JSON.stringify({ message: REFUND_ERROR })],
        );
        died += 1;
      }
    })();
    try {
      for (let i = 0; i < 40; i++) {
        const s = await readDeadLettersScreen(t.db, reviewer, deadLetterSearchSchema.parse({}));
        expect(s.list.matching).toBe(s.groups.total);
        expect(s.groups.groups.reduce((n, g) => n + g.count, 0)).toBe(s.groups.total);
      }
    } finally {
      reading = false;
    }
    await writer;
    expect(died).toBeGreaterThan(0);
  });
});
