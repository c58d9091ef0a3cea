// Calling the real app: server actions the way Next's client does (POST to a page that binds
// the action, with its Next-Action id from the build's server-reference manifest and the
// arguments in React's reply encoding; the answer is a React Flight stream), route handlers as
// plain HTTP. Each call is reduced to an Outcome the table can promise, or a description.
import { readFileSync } from "node:fs";
import path from "node:path";
import type pg from "pg";
import { z } from "zod";
import { ROOT } from "../settings";
import type { Outcome } from "./matrix";
import { BASE_URL, type Credentials } from "./principals";
import { routeOf } from "./source-scan";

export type Observed = {
  /** An Outcome when the response is one the table can promise; otherwise a description. */
  outcome: Outcome | string;
  detail: string;
};

const manifestSchema = z.object({
  node: z.record(
    z.string(),
    z.object({
      workers: z.record(z.string(), z.unknown()),
      filename: z.string().optional(),
      exportedName: z.string().optional(),
    }),
  ),
});

/** An action's id and the page route (maybe dynamic) whose bundle serves it. */
export type ActionEndpoint = { id: string; route: string };

/** Where the build serves each action: "<file>#<export>" → id and a page that binds it. */
export function readActionEndpoints(): Map<string, ActionEndpoint> {
  const file = path.join(ROOT, ".next", "server", "server-reference-manifest.json");
  const manifest = manifestSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  const out = new Map<string, ActionEndpoint>();
  for (const [id, entry] of Object.entries(manifest.node)) {
    if (!entry.filename || !entry.exportedName) continue;
    // "app/(dashboard)/tasks/page" → "/tasks". The sign-in page needs no session to reach, and
    // a static page needs no sample address.
    const routes = Object.keys(entry.workers)
      .filter((w) => w.endsWith("/page"))
      .map((w) => routeOf(`${w}.tsx`))
      .sort();
    const chosen = routes.includes("/sign-in")
      ? "/sign-in"
      : (routes.find((r) => !r.includes("[")) ?? routes[0]);
    if (chosen) out.set(`${entry.filename}#${entry.exportedName}`, { id, route: chosen });
  }
  return out;
}

/** A real address for each dynamic page, from the e2e database. */
const SAMPLE_PATHS: Record<string, (db: pg.Pool) => Promise<string>> = {
  "/tasks/[id]": async (db) => {
    const { rows } = await db.query<{ id: string }>(
      "select id from tasks order by created_at, id limit 1",
    );
    if (!rows[0]) throw new Error("the e2e database has no task");
    return `/tasks/${rows[0].id}`;
  },
  "/dead-letters/bulk/[id]": async (db) => {
    const found = await db.query<{ id: string }>(
      "select id from bulk_actions order by created_at, id limit 1",
    );
    if (found.rows[0]) return `/dead-letters/bulk/${found.rows[0].id}`;
    // None yet on this database: a withdrawn one over the oldest task (nothing acts on it).
    const id = crypto.randomUUID();
    await db.query(
      `with t as (select id, version from tasks order by created_at, id limit 1),
       b as (
         insert into bulk_actions (id, action, params, selection, as_of, status, two_person,
           member_count, requested_by, requested_principal, ended_by, end_reason, finished_at)
         select $1, 'resume', '{}', '{}', now(), 'withdrawn', true, 1, 'user:e2e@example.com',
           '{"actor":"user:e2e@example.com","who":"the reviewer role","scopes":[]}',
           'user:e2e@example.com', 'withdrawn by user:e2e@example.com', now()
         from t returning id
       )
       insert into bulk_action_members (bulk_id, task_id, position, task_version, status, outcome, detail)
       select b.id, t.id, 1, t.version, 'finished', 'skipped', 'withdrawn by user:e2e@example.com'
       from b, t`,
      [id],
    );
    return `/dead-letters/bulk/${id}`;
  },
};

export function hasSamplePath(route: string): boolean {
  return !route.includes("[") || route in SAMPLE_PATHS;
}

/** The route itself when static; a sample address for a dynamic one. */
export async function concretePath(route: string, db: pg.Pool): Promise<string> {
  if (!route.includes("[")) return route;
  const sample = SAMPLE_PATHS[route];
  if (!sample) {
    throw new Error(
      `no sample address for ${route}: add one to SAMPLE_PATHS in e2e/authz/calls.ts`,
    );
  }
  return sample(db);
}

/** The client's reply encoding: strings that start with "$" are escaped as "$$". */
function encodeReply(value: unknown): unknown {
  if (typeof value === "string") return value.startsWith("$") ? `$${value}` : value;
  if (value === undefined) return "$undefined";
  if (Array.isArray(value)) return value.map(encodeReply);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encodeReply(v)]));
  }
  return value;
}

export type FlightRow = { tag: string; text: string } | { json: unknown };

/** Splits a React Flight (text/x-component) body into its rows by id. */
export function parseFlight(body: Buffer): Map<string, FlightRow> {
  const rows = new Map<string, FlightRow>();
  let pos = 0;
  while (pos < body.length) {
    const colon = body.indexOf(0x3a, pos);
    if (colon < 0) break;
    const id = body.subarray(pos, colon).toString("utf8");
    pos = colon + 1;
    if (body[pos] === 0x54 /* T: text row, length-prefixed in bytes */) {
      const comma = body.indexOf(0x2c, pos);
      const length = Number.parseInt(body.subarray(pos + 1, comma).toString("utf8"), 16);
      rows.set(id, { tag: "T", text: body.subarray(comma + 1, comma + 1 + length).toString() });
      pos = comma + 1 + length;
      continue;
    }
    let end = body.indexOf(0x0a, pos);
    if (end < 0) end = body.length;
    const line = body.subarray(pos, end).toString("utf8");
    pos = end + 1;
    const tag = /^[A-Z]+/.exec(line)?.[0];
    if (tag) rows.set(id, { tag, text: line.slice(tag.length) });
    else rows.set(id, { json: JSON.parse(line) });
  }
  return rows;
}

/** Follows "$@1"-style references and undoes the "$$" escape for the plain values we return. */
export function resolveFlight(value: unknown, rows: Map<string, FlightRow>, depth = 0): unknown {
  if (depth > 50) throw new Error("flight references nest too deep");
  if (typeof value === "string" && value.startsWith("$")) {
    if (value.startsWith("$$")) return value.slice(1);
    if (value === "$undefined") return undefined;
    const ref = /^\$@?([0-9a-f]+)$/.exec(value)?.[1];
    if (ref !== undefined) {
      const row = rows.get(ref);
      if (!row) throw new Error(`flight row ${ref} is missing`);
      if ("json" in row) return resolveFlight(row.json, rows, depth + 1);
      if (row.tag === "T") return row.text;
      throw new FlightError(row.tag, row.text);
    }
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => resolveFlight(v, rows, depth + 1));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, resolveFlight(v, rows, depth + 1)]),
    );
  }
  return value;
}

class FlightError extends Error {
  constructor(
    readonly tag: string,
    readonly text: string,
  ) {
    super(`flight row ${tag}${text}`);
  }
}

const actionResultSchema = z.union([
  z.object({ ok: z.literal(true) }).loose(),
  z.object({ ok: z.literal(false), status: z.number(), error: z.string() }).loose(),
]);

/** Calls a server action as Next's client does and says what came back. */
export async function callAction(
  endpoint: ActionEndpoint,
  pagePath: string,
  args: unknown[],
  credentials: Credentials,
): Promise<Observed> {
  const response = await fetch(`${BASE_URL}${pagePath}`, {
    method: "POST",
    headers: {
      ...credentials,
      accept: "text/x-component",
      "next-action": endpoint.id,
      "content-type": "text/plain;charset=UTF-8",
      origin: BASE_URL,
    },
    body: JSON.stringify(encodeReply(args)),
    redirect: "manual",
  });
  const body = Buffer.from(await response.arrayBuffer());
  const excerpt = body.toString("utf8").slice(0, 300);
  if (response.status >= 300 && response.status < 400) {
    // Not the action answering: something in front of it (the proxy) turned the request away.
    return {
      outcome: `HTTP ${response.status} to ${response.headers.get("location")} before the action ran`,
      detail: excerpt,
    };
  }
  const redirect = response.headers.get("x-action-redirect");
  if (redirect) {
    const target = redirect.split(";")[0] ?? redirect;
    return { outcome: `redirect:${new URL(target, BASE_URL).pathname}`, detail: redirect };
  }
  if (!response.headers.get("content-type")?.includes("text/x-component")) {
    return {
      outcome: `HTTP ${response.status} ${response.headers.get("content-type")}`,
      detail: excerpt,
    };
  }
  let value: unknown;
  try {
    const rows = parseFlight(body);
    const root = rows.get("0");
    if (!root || !("json" in root)) throw new Error("no root row");
    value = resolveFlight((root.json as { a?: unknown }).a, rows);
  } catch (error) {
    const what = error instanceof FlightError ? `the action threw (${error.text})` : String(error);
    return { outcome: `HTTP ${response.status}: ${what}`, detail: excerpt };
  }
  const result = actionResultSchema.safeParse(value);
  if (!result.success) {
    return { outcome: `returned ${JSON.stringify(value)}`, detail: excerpt };
  }
  if (result.data.ok) return { outcome: "ok", detail: JSON.stringify(value).slice(0, 300) };
  const { status, error } = result.data;
  return {
    outcome: status === 401 || status === 403 || status === 404 ? status : `${status}: ${error}`,
    detail: error,
  };
}

/** Calls a route handler and says what came back. */
export async function callRoute(
  method: string,
  pathname: string,
  body: unknown,
  credentials: Credentials,
): Promise<Observed> {
  const response = await fetch(`${BASE_URL}${pathname}`, {
    method,
    headers: {
      ...credentials,
      // A browser (the only holder of a session cookie) names the page's origin on every POST.
      ...(credentials.cookie ? { origin: BASE_URL } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    redirect: "manual",
  });
  const excerpt = (await response.text()).slice(0, 300);
  const { status } = response;
  if (status >= 200 && status < 300) return { outcome: "ok", detail: excerpt };
  if (status >= 300 && status < 400) {
    const location = response.headers.get("location") ?? "";
    return { outcome: `redirect:${new URL(location, BASE_URL).pathname}`, detail: location };
  }
  return {
    outcome: status === 401 || status === 403 || status === 404 ? status : `HTTP ${status}`,
    detail: excerpt,
  };
}
