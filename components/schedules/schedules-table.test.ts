// The Schedules screen's table rendered from real rows: cron as written, the next run in the
// schedule's own zone, the last task's link, paused and source, and no controls for a reviewer
// (the admin's controls need the app router; no browser test covers them yet).
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createDb } from "../../db/client";
import { setUpTestDatabase } from "../../db/testing/database";
import { testViewer } from "../../lib/auth/testing";
import { operator } from "../../lib/domain/access";
import { defineAgent } from "../../lib/sdk/define";
import { createSchedule } from "../../lib/server/commands/create-schedule";
import { setSchedulePaused } from "../../lib/server/commands/set-schedule-paused";
import { listSchedules } from "../../lib/server/queries/list-schedules";
import { publishCatalog } from "../../worker/runtime/catalog";
import { publishSchedules, tickSchedules } from "../../worker/runtime/schedules";
import { SchedulesTable } from "./schedules-table";

const t = await setUpTestDatabase("schedules_screen");

describe("SchedulesTable", () => {
  it("shows each schedule as the screen promises", async () => {
    const agent = defineAgent({
      name: "digest",
      input: z.object({ n: z.number() }),
      tools: {},
      schedules: [{ name: "nightly", cron: "0 2 * * *", timezone: "Asia/Tokyo", input: { n: 1 } }],
      run: async () => null,
    });
    await publishCatalog(t.pool, [agent], "w");
    await publishSchedules(t.pool, [agent], "w");
    const admin = operator("user:admin@example.com");
    const made = await createSchedule(t.pool, admin, {
      agent: "digest",
      name: "every-second",
      cron: "* * * * * *",
      input: { n: 2 },
    });
    if (!made.ok) throw new Error(made.message);
    await new Promise((r) => setTimeout(r, 1_100));
    await tickSchedules(t.pool, ["digest"]);
    await setSchedulePaused(t.pool, admin, { agent: "digest", name: "every-second", paused: true });

    const db = createDb(t.pool);
    const rows = await listSchedules(db, testViewer("reviewer"));
    const nightly = rows.find((r) => r.name === "nightly");
    const second = rows.find((r) => r.name === "every-second");
    expect(second?.lastTask?.id).toMatch(/^[0-9a-f-]{36}$/);

    const asReviewer = renderToStaticMarkup(
      createElement(SchedulesTable, { schedules: rows, canWrite: false }),
    );
    expect(asReviewer).toContain("0 2 * * *");
    expect(asReviewer).toContain("Asia/Tokyo");
    // 02:00 in Tokyo, whatever day it is.
    expect(asReviewer).toMatch(/02:00:00/);
    expect(nightly?.nextOccurrenceAt).toMatch(/T17:00:00\.000Z$/);
    // An admin's schedule no worker ticked yet shows its cron's next run all the same.
    const hourly = await createSchedule(t.pool, admin, {
      agent: "digest",
      name: "hourly",
      cron: "0 * * * *",
      input: { n: 3 },
    });
    if (!hourly.ok) throw new Error(hourly.message);
    const listed = (await listSchedules(db, testViewer("reviewer"))).find(
      (r) => r.name === "hourly",
    );
    expect(listed?.nextOccurrenceAt).toMatch(/T\d\d:00:00\.000Z$/);
    expect(asReviewer).toContain(`href="/tasks/${second?.lastTask?.id}"`);
    expect(asReviewer).toContain("paused");
    expect(asReviewer).toContain("from code");
    expect(asReviewer).not.toContain("Pause");
  });
});
