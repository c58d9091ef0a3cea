// An archived task (issue 23) over /api/v1, through the real route handlers and a real API
// token: GET /tasks/{id} and GET /why carry `archived`, valid for the documented schemas, and a
// review command on the task is a 409 that names the archive, not a database error.
import { beforeAll, describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator } from "../../domain/access";
import { createApiToken } from "../../server/commands/api-tokens";
import { archiveClosedTasks, closedTask } from "../../server/ledger/archive-testing";
import { whyAnswerSchema } from "../../server/queries/why";
import { taskDetailSchema } from "./schemas";

const t = await setUpTestDatabase("api_archived");
process.env.DATABASE_URL = t.appUrl;

const taskRoute = await import("../../../app/api/v1/tasks/[id]/route");
const cancelRoute = await import("../../../app/api/v1/tasks/[id]/cancel/route");
const whyRoute = await import("../../../app/api/v1/why/route");

const created = await createApiToken(t.pool, operator("test"), {
  name: "api-archived",
  scopes: ["tasks:read", "ledger:read", "payloads:read", "tasks:cancel"],
});
if (!created.ok) throw new Error(created.message);
const token = created.value.token;

async function call(
  handler: (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>,
  path: string,
  params: Record<string, string> = {},
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const request = new Request(`http://localhost/api/v1${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const response = await handler(request, { params: Promise.resolve(params) });
  return { status: response.status, body: await response.json() };
}

let old = { id: "", key: "" };
let recent = { id: "", key: "" };
let archive = { archiveId: "", at: "" };

beforeAll(async () => {
  old = await closedTask(t.pool, "cancelled", "2025-12-01T00:00:00Z");
  recent = await closedTask(t.pool, "cancelled", "2026-02-01T00:00:00Z");
  archive = await archiveClosedTasks(t.pool, new Date("2026-01-01T00:00:00Z"));
});

describe("an archived task over /api/v1", () => {
  it("GET /tasks/{id} says archived with the archive id and time; another task says null", async () => {
    const r = await call(taskRoute.GET, `/tasks/${old.id}`, { id: old.id });
    expect(r.status).toBe(200);
    const detail = taskDetailSchema.parse(r.body);
    expect(detail.task.archived).toEqual({
      archiveId: archive.archiveId,
      at: archive.at,
      source: "database",
      unavailable: null,
    });
    const other = await call(taskRoute.GET, `/tasks/${recent.id}`, { id: recent.id });
    expect(taskDetailSchema.parse(other.body).task.archived).toBeNull();
  });

  it("GET /why says archived for the archived task's effect", async () => {
    const r = await call(whyRoute.GET, `/why?taskId=${old.id}`);
    expect(r.status).toBe(200);
    const answer = whyAnswerSchema.parse(r.body);
    expect(answer.effects[0]?.task.archived).toEqual({
      archiveId: archive.archiveId,
      at: archive.at,
      source: "database",
      unavailable: null,
    });
  });

  it("a review command on it is a 409 that names the archive", async () => {
    const { rows } = await t.pool.query<{ version: number }>(
      "select version from tasks where id = $1",
      [old.id],
    );
    const version = rows[0]?.version;
    const r = await call(cancelRoute.POST, `/tasks/${old.id}/cancel`, { id: old.id }, { version });
    expect(r.status).toBe(409);
    expect(r.body.detail).toBe(
      `This task is archived (archive ${archive.archiveId}) and can no longer change (cannot cancel a task that is cancelled)`,
    );
    const other = await call(
      cancelRoute.POST,
      `/tasks/${recent.id}/cancel`,
      { id: recent.id },
      { version },
    );
    expect(other.status).toBe(409);
    expect(other.body.detail).toBe("cannot cancel a task that is cancelled");
  });

  it("once its entries left the database, a server without LEDGER_ARCHIVE_DIR says it cannot read them", async () => {
    // The detach phase 2 makes, as the superuser with triggers off.
    const c = await t.superPool.connect();
    try {
      await c.query("set session_replication_role = replica");
      await c.query("delete from ledger_entries where stream = $1", [`task:${old.id}`]);
    } finally {
      await c.query("reset session_replication_role");
      c.release();
    }
    const unavailable = {
      archiveId: archive.archiveId,
      at: archive.at,
      source: null,
      unavailable: {
        reason: "not_configured",
        message: "LEDGER_ARCHIVE_DIR is not configured: this server does not read archive files",
      },
    };
    const detail = await call(taskRoute.GET, `/tasks/${old.id}`, { id: old.id });
    expect(taskDetailSchema.parse(detail.body).task.archived).toEqual(unavailable);
    const why = await call(whyRoute.GET, `/why?taskId=${old.id}`);
    expect(whyAnswerSchema.parse(why.body).effects[0]?.task.archived).toEqual(unavailable);
  });
});
