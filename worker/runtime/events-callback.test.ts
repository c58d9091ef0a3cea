// ctx.callbackUrl against a real database and the real route: the link opens a confirmation
// that fires nothing (mail scanners prefetch), confirming sends the event to that task only,
// once (then 410 Gone), and a tampered token is refused.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../db/testing/database";
import { defineAgent } from "../../lib/sdk/define";
import { runtimeTestKit } from "./test-support";

process.env.CALLBACK_SECRET = "test-callback-secret-of-at-least-32-chars";
process.env.AUTH_BASE_URL = "https://ledger.example.com";
const t = await setUpTestDatabase("events_callback");
process.env.DATABASE_URL = t.appUrl;
const kit = runtimeTestKit(t.pool);
// What agent-ledger worker passes from the same variables the web app reads.
const callbacks = {
  secret: "test-callback-secret-of-at-least-32-chars",
  baseUrl: "https://ledger.example.com",
};
const callbackRoute = await import("../../app/api/v1/callbacks/[token]/route");

const links = new Map<string, string>();
const confirmer = defineAgent({
  name: "link-confirmer",
  input: z.object({ order: z.string() }),
  tools: {},
  run: async (ctx, input) => {
    const url = await ctx.callbackUrl({ name: "order.confirmed" });
    links.set(input.order, url);
    return { got: await ctx.waitForEvent("order.confirmed") };
  },
});

async function open(method: "GET" | "POST", token: string) {
  const response = await callbackRoute[method](
    new Request(`https://ledger.example.com/api/v1/callbacks/${token}`, { method }),
    { params: Promise.resolve({ token }) },
  );
  return { status: response.status, text: await response.text() };
}

const status = async (id: string) => (await kit.task(id)).status;

describe("ctx.callbackUrl", () => {
  it("is signed, confirmed by POST only, reaches only its task, and works once", async () => {
    const mine = await kit.enqueue(confirmer.name, { order: "a" });
    const other = await kit.enqueue(confirmer.name, { order: "b" });
    expect((await kit.runOneAttempt("w1", [confirmer], { callbacks }))?.outcome).toBe("waiting");
    expect((await kit.runOneAttempt("w1", [confirmer], { callbacks }))?.outcome).toBe("waiting");
    const url = links.get("a") ?? "";
    expect(url).toMatch(
      new RegExp(`^https://ledger\\.example\\.com/api/v1/callbacks/${mine}\\.1\\.[\\w-]+$`),
    );
    const token = url.split("/").at(-1) ?? "";
    // The link is not in the ledger: the journal holds the event's name only.
    const { rows } = await t.pool.query(
      "select count(*)::int as n from ledger_entries where data::text like '%' || $1 || '%'",
      [token.split(".")[2]],
    );
    expect(rows[0].n).toBe(0);

    const shown = await open("GET", token);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain("order.confirmed");
    expect((await open("GET", token)).status).toBe(200);
    expect(await status(mine)).toBe("waiting");

    const tampered = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    expect((await open("GET", tampered)).status).toBe(404);
    expect((await open("POST", tampered)).status).toBe(404);
    const otherTask = token.replace(mine, other);
    expect((await open("POST", otherTask)).status).toBe(404);
    expect((await open("POST", "not-a-token")).status).toBe(404);

    expect((await open("POST", token)).status).toBe(200);
    expect(await status(mine)).toBe("queued");
    expect(await status(other)).toBe("waiting");
    expect((await open("POST", token)).status).toBe(410);
    expect((await open("GET", token)).status).toBe(410);

    expect(await kit.runOneAttempt("w1", [confirmer], { callbacks })).toEqual({
      taskId: mine,
      outcome: "succeeded",
    });
    expect((await kit.task(mine)).result).toMatchObject({
      got: { timedOut: false, event: { name: "order.confirmed", payload: { callback: 1 } } },
    });
    expect(links.get("a")).toBe(url);
    const delivered = (await kit.entries(mine)).find((e) => e.kind === "event.delivered");
    expect(delivered?.actor).toBe(`callback:${mine}.1`);
  });

  it("fails the task, naming the option, on a worker without a callback secret", async () => {
    const id = await kit.enqueue(confirmer.name, { order: "no-secret" });
    expect((await kit.runOneAttempt("w1", [confirmer]))?.outcome).toBe("dead");
    expect((await kit.task(id)).last_error?.message).toContain("callbacks option");
  });
});
