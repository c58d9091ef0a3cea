// The screens of issue 21's flow control as an operator reads them, each state made by a real
// worker: an order's parcels waiting for the warehouse's events (ctx.waitForEvent) and the order
// waiting for its children (ctx.join) on the tasks list, with what each waits for and since
// when; the order's child tasks with their states on its page; an agent's concurrency limit and
// its tool's rate limit on the agents screen.
import type pg from "pg";
import { z } from "zod";
import { parseEnv } from "../lib/env";
import { defineAgent } from "../lib/sdk/define";
import { sendEvent } from "../lib/sdk/send-event";
import { createAgents } from "../worker/agents";
import { publishCatalog } from "../worker/runtime/catalog";
import { asRole, enqueue, expect, randomWord, runTasks, test } from "./fixtures";

test.use(asRole("ops"));

const DAY_MS = 86_400_000;

/** As the dashboard prints a time (components/ui/timestamp.tsx). */
const shown = (at: Date) => `${at.toISOString().slice(0, 19).replace("T", " ")} UTC`;

function orderAgents(word: string) {
  const packParcel = defineAgent({
    name: `pack-parcel-${word}`,
    input: z.object({ parcel: z.string() }),
    tools: {},
    run: async (ctx, input) => {
      const packed = await ctx.waitForEvent("parcel.packed", {
        match: { parcel: input.parcel },
        timeoutMs: DAY_MS,
      });
      return { parcel: input.parcel, packed: !packed.timedOut };
    },
  });
  // No worker in this spec runs it: its task stays queued.
  const printLabel = defineAgent({
    name: `print-label-${word}`,
    input: z.object({ order: z.string() }),
    tools: {},
    run: async () => null,
  });
  const shipOrder = defineAgent({
    name: `ship-order-${word}`,
    input: z.object({ order: z.string(), parcels: z.array(z.string()) }),
    tools: {},
    run: async (ctx, input) => {
      const children = [];
      for (const parcel of input.parcels) {
        children.push(await ctx.spawn(packParcel, { parcel }, { key: parcel }));
      }
      children.push(await ctx.spawn(printLabel, { order: input.order }));
      const joined = await ctx.join(children);
      return { shipped: joined.children.length };
    },
  });
  return { packParcel, printLabel, shipOrder };
}

async function statusSince(db: pg.Pool, id: string): Promise<Date> {
  const { rows } = await db.query<{ at: Date }>(
    "select status_changed_at as at from tasks where id = $1 and status = 'waiting'",
    [id],
  );
  const at = rows[0]?.at;
  if (!at) throw new Error(`task ${id} is not waiting`);
  return at;
}

test("waiting tasks say what they wait for and since when; the parent lists its children", async ({
  page,
  db,
}) => {
  test.setTimeout(120_000);
  const word = randomWord(5);
  const { packParcel, printLabel, shipOrder } = orderAgents(word);
  const agents = [shipOrder, packParcel];
  const order = `o-${word}`;
  const parentId = await enqueue(db, shipOrder.name, { order, parcels: ["a", "b", "c"] });
  await runTasks(agents, [parentId], ["waiting"]);
  const { rows: children } = await db.query<{ id: string; agent: string; parcel: string | null }>(
    "select id, agent, input->>'parcel' as parcel from tasks where parent_id = $1 order by created_at, id",
    [parentId],
  );
  expect(children.map((c) => c.parcel)).toEqual(["a", "b", "c", null]);
  const parcels = children.filter((c) => c.agent === packParcel.name);
  await runTasks(
    agents,
    parcels.map((c) => c.id),
    ["waiting"],
  );
  // The warehouse packed parcel a: its task wakes and ends, the order still waits for the rest.
  await sendEvent(db, { name: "parcel.packed", payload: { parcel: "a" }, actor: "e2e:warehouse" });
  const [packedA, waitingB, waitingC] = parcels;
  const label = children.find((c) => c.agent === printLabel.name);
  if (!packedA || !waitingB || !waitingC || !label) throw new Error("the order spawned too few");
  await runTasks(agents, [packedA.id], ["succeeded"]);
  expect((await db.query("select status from tasks where id = $1", [parentId])).rows[0]).toEqual({
    status: "waiting",
  });

  // The tasks list, waiting only: each row says what it waits for and since when.
  await page.goto("/tasks?status=waiting");
  await expect(page.getByRole("heading", { name: "Waiting tasks" })).toBeVisible();
  const row = (id: string) => page.locator(`tr[data-task-id="${id}"]`);
  await expect(row(parentId)).toContainText(shipOrder.name);
  await expect(row(parentId).getByTestId("waiting-for")).toHaveText("for its 4 children");
  await expect(row(parentId)).toContainText(shown(await statusSince(db, parentId)));
  for (const [parcel, task] of [
    ["b", waitingB],
    ["c", waitingC],
  ] as const) {
    const { rows } = await db.query<{ deadline: Date }>(
      "select deadline from event_waits where task_id = $1 and status = 'waiting'",
      [task.id],
    );
    const deadline = rows[0]?.deadline;
    if (!deadline) throw new Error(`no open wait for parcel ${parcel}`);
    await expect(row(task.id).getByTestId("waiting-for")).toHaveText(
      `for parcel.packed {"parcel":"${parcel}"}, until ${shown(deadline)}`,
    );
    await expect(row(task.id)).toContainText(shown(await statusSince(db, task.id)));
  }
  // Neither the parcel that was packed nor the label no worker ran is waiting.
  await expect(row(packedA.id)).toHaveCount(0);
  await expect(row(label.id)).toHaveCount(0);
  await page.screenshot({ path: "docs/screenshots/tasks-waiting.png" });

  // The order's page: waiting for its children, each child listed with where it stands.
  await page.goto(`/tasks/${parentId}`);
  await expect(
    page.getByTestId("task-callout").getByText("Waiting for its children"),
  ).toBeVisible();
  const family = page.locator("#family");
  await expect(family.getByRole("heading", { name: "Child tasks" })).toBeVisible();
  await expect(family.locator("[data-task-children-tally]")).toHaveText(
    "4 children: 1 Queued, 2 Waiting, 1 Succeeded.",
  );
  for (const [task, agent, state] of [
    [packedA, packParcel.name, "Succeeded"],
    [waitingB, packParcel.name, "Waiting"],
    [waitingC, packParcel.name, "Waiting"],
    [label, printLabel.name, "Queued"],
  ] as const) {
    const cells = family.locator(`tr[data-task-child="${task.id}"]`).getByRole("cell");
    await expect(cells.nth(1)).toHaveText(agent);
    await expect(cells.nth(2)).toHaveText(state);
  }
  // From the page's top, with its "Waiting for its children", down to the end of the card: a
  // window that tall, so the sidebar runs the whole height too.
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await family.boundingBox();
  if (!box) throw new Error("the Child tasks card is not on the page");
  const width = page.viewportSize()?.width ?? 1280;
  await page.setViewportSize({ width, height: Math.ceil(box.y + box.height + 24) });
  await page.screenshot({ path: "docs/screenshots/task-family.png" });
});

test("the agents screen shows an agent's concurrency limit and its tool's rate limit", async ({
  page,
  db,
}) => {
  // The demo refund agent as a worker with PAYMENTS_RATE_LIMIT_PER_SECOND=5 publishes it, under
  // a name of this spec's and with at most 2 refunds running at once.
  const refund = createAgents(parseEnv({ PAYMENTS_RATE_LIMIT_PER_SECOND: "5" })).find(
    (a) => a.name === "refund",
  );
  if (!refund) throw new Error("the demo refund agent is missing");
  const name = `refund-limited-${randomWord(5)}`;
  await publishCatalog(db, [defineAgent({ ...refund, name, concurrency: { limit: 2 } })], "e2e");

  await page.goto("/agents");
  const summary = page.locator(`tr[data-agent="${name}"]`);
  await expect(summary).toContainText("2 at once (agent code)");
  const section = page.getByRole("region", { name, exact: true });
  await expect(section.getByText("Concurrency limit:")).toContainText("2 at once (agent code)");
  await expect(section.locator('tr[data-tool="refund"]')).toContainText(
    "Rate limit · 5 calls per 1 s",
  );
  await section.scrollIntoViewIfNeeded();
  await section.screenshot({ path: "docs/screenshots/agents-limits.png" });
});
