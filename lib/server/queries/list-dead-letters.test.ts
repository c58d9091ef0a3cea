import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import { AuthError } from "../../domain/access";
import { DEAD_REASONS } from "../../domain/task-states";
import { ERRORS_PER_REASON, listDeadLetters } from "./list-dead-letters";

const t = await setUpTestDatabase("dead-letters");
const ops = testViewer("ops");

async function dead(reason: string, error: unknown, count = 1, ageMinutes = 0) {
  await t.pool.query(
    `insert into tasks (agent, input, status, dead_reason, last_error, status_changed_at, created_by)
     select 'a', '{}', 'dead', $1, $2::jsonb, now() - make_interval(mins => $4), 't' from generate_series(1, $3)`,
    [reason, error === null ? null : JSON.stringify(error), count, ageMinutes],
  );
}

describe("listDeadLetters", () => {
  it("lists every reason with zeros when nothing is dead", async () => {
    const d = await listDeadLetters(t.db, ops);
    expect(d.total).toBe(0);
    expect(d.groups.map((g) => g.reason)).toEqual([...DEAD_REASONS]);
    expect(d.groups.every((g) => g.count === 0 && g.oldestAgeSeconds === null)).toBe(true);
  });

  it("groups by reason, then error, with the oldest wait and the rest summed", async () => {
    await dead("timeout", { message: "took too long" }, 3, 90);
    await dead("timeout", { message: "socket hang up" }, 1, 5);
    await dead("timeout", "a bare string error", 1);
    await dead("timeout", null, 1);
    for (let i = 0; i < ERRORS_PER_REASON + 2; i++) await dead("exhausted", { message: `e${i}` });
    await t.pool.query("insert into tasks (agent, input, created_by) values ('a', '{}', 't')");

    const d = await listDeadLetters(t.db, ops);
    expect(d.total).toBe(6 + ERRORS_PER_REASON + 2);
    const timeout = d.groups.find((g) => g.reason === "timeout");
    expect(timeout?.count).toBe(6);
    expect(timeout?.errors[0]).toMatchObject({
      fingerprint: "took too long",
      message: "took too long",
      count: 3,
    });
    expect(timeout?.errors.map((e) => e.message)).toEqual(
      expect.arrayContaining(["socket hang up", "a bare string error", null]),
    );
    expect(timeout?.oldestAgeSeconds).toBeGreaterThanOrEqual(90 * 60 - 5);
    expect(timeout?.oldestAgeSeconds).toBeLessThan(91 * 60);
    const exhausted = d.groups.find((g) => g.reason === "exhausted");
    expect(exhausted?.errors).toHaveLength(ERRORS_PER_REASON);
    expect(exhausted?.otherErrors).toBe(2);
  });
});

describe("listDeadLetters authorization", () => {
  it("refuses without a viewer (401) and without tasks:read (403)", async () => {
    await expect(listDeadLetters(t.db, null)).rejects.toMatchObject({
      name: "AuthError",
      status: 401,
    });
    const denied = listDeadLetters(t.db, testTokenViewer(["ledger:read"], "reader"));
    await expect(denied).rejects.toBeInstanceOf(AuthError);
    await expect(denied).rejects.toMatchObject({
      status: 403,
      message: 'token "reader" may not do this (needs tasks:read)',
    });
  });
});
