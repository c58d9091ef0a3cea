// The schedule commands' refusals against a real database: who may not, a field that does not
// parse (named), an agent no worker published, an input its schema refuses; nothing written.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { publishCatalog } from "../../../worker/runtime/catalog";
import { testViewer } from "../../auth/testing";
import { principalOf } from "../../domain/access";
import { defineAgent } from "../../sdk/define";
import { createSchedule } from "./create-schedule";
import { deleteSchedule } from "./delete-schedule";
import { setSchedulePaused } from "./set-schedule-paused";

const t = await setUpTestDatabase("schedule_commands");
const admin = principalOf(testViewer("admin"));
const reviewer = principalOf(testViewer("reviewer"));
const spec = {
  agent: "digest",
  name: "daily",
  cron: "0 8 * * *",
  timezone: "Asia/Tokyo",
  input: { to: "ops@example.com" },
};

describe("schedule commands", () => {
  it("refuses who lacks schedules:write, bad fields by name, unknown agents and bad input", async () => {
    await publishCatalog(
      t.pool,
      [
        defineAgent({
          name: "digest",
          input: z.object({ to: z.string().email() }),
          tools: {},
          run: async () => null,
        }),
      ],
      "w",
    );
    expect(await createSchedule(t.pool, reviewer, spec)).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await createSchedule(t.pool, admin, { ...spec, timezone: "Asia/Tokio" })).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/^timezone: "Asia\/Tokio" is not an IANA time zone/),
    });
    expect(await createSchedule(t.pool, admin, { ...spec, cron: "0 8 * * * * *" })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^cron: /),
    });
    expect(await createSchedule(t.pool, admin, { ...spec, agent: "nobody" })).toMatchObject({
      ok: false,
      code: "not_found",
    });
    expect(await createSchedule(t.pool, admin, { ...spec, input: { to: "nope" } })).toMatchObject({
      ok: false,
      code: "invalid",
      message: expect.stringMatching(/input\.to/),
    });
    const { rows } = await t.pool.query("select 1 from schedules");
    expect(rows).toHaveLength(0);

    expect(await createSchedule(t.pool, admin, spec)).toMatchObject({ ok: true });
    expect(await createSchedule(t.pool, admin, spec)).toMatchObject({
      ok: false,
      code: "conflict",
    });
    const ref = { agent: "digest", name: "daily" };
    expect(await setSchedulePaused(t.pool, reviewer, { ...ref, paused: true })).toMatchObject({
      code: "forbidden",
    });
    expect(await deleteSchedule(t.pool, reviewer, ref)).toMatchObject({ code: "forbidden" });
    expect(await deleteSchedule(t.pool, admin, { ...ref, name: "other" })).toMatchObject({
      code: "not_found",
    });
    expect(await deleteSchedule(t.pool, admin, ref)).toMatchObject({ ok: true });
  });
});
