// What `npm run scale:measure` times: each line is one screen's (or the API's) query with one
// filter, called the way its route calls it, inputs parsed by the route's own zod schema. A new
// filter on a screen is one more line here.
import type pg from "pg";
import type { Db } from "../../db/client";
import { scopesForRole, type Viewer } from "../../lib/domain/access";
import { OVERVIEW_WINDOWS } from "../../lib/domain/overview-window";
import { TASK_STATUSES } from "../../lib/domain/task-states";
import { readDeadLettersScreen } from "../../lib/server/queries/dead-letters-screen";
import { getApprovalsScreen } from "../../lib/server/queries/get-approvals-screen";
import { getEffect } from "../../lib/server/queries/get-effect";
import { getMetrics } from "../../lib/server/queries/get-metrics";
import { getOverview } from "../../lib/server/queries/get-overview";
import { getSpend } from "../../lib/server/queries/get-spend";
import { getTaskDetail } from "../../lib/server/queries/get-task-detail";
import { getTaskScreen, taskScreenSearchSchema } from "../../lib/server/queries/get-task-screen";
import { countInbox } from "../../lib/server/queries/inbox-counts";
import { ledgerApiQuerySchema, ledgerSearchSchema } from "../../lib/server/queries/ledger-search";
import { listAgents } from "../../lib/server/queries/list-agents";
import { listApprovals } from "../../lib/server/queries/list-approvals";
import { listDeadLetters } from "../../lib/server/queries/list-dead-letters";
import { INBOX_KINDS, inboxSearchSchema, listInbox } from "../../lib/server/queries/list-inbox";
import { listLedgerEntries, listLedgerPage } from "../../lib/server/queries/list-ledger-entries";
import { listLedgerKinds } from "../../lib/server/queries/list-ledger-kinds";
import {
  listTaskTimeline,
  timelineSearchSchema,
} from "../../lib/server/queries/list-task-timeline";
import { listTasks, taskSearchSchema } from "../../lib/server/queries/list-tasks";
import { explainWhy, whyQuerySchema } from "../../lib/server/queries/why";
import { DEAD_AGES, deadLetterSearchSchema } from "../../lib/server/review/dead-letter-filter";

const DEAD_AGE_NAMES = Object.keys(DEAD_AGES) as (keyof typeof DEAD_AGES)[];

/** Values that exist in the loaded data, looked up once before timing (see samples.ts). */
export type Samples = {
  taskId: string;
  bigTaskId: string;
  key: string;
  recipient: string;
  messageId: string;
  refundId: string;
  /** An hour in the middle of the data, and the start of its last 30 days. */
  windowFrom: string;
  windowTo: string;
  recentFrom: string;
  busyActor: string;
  rareActor: string;
  deadReason: string;
  fingerprint: string;
};

export type CaseContext = { pool: pg.Pool; db: Db; viewer: Viewer; s: Samples };
export type ScaleCase = {
  name: string;
  run: (c: CaseContext) => Promise<unknown>;
  /** Untimed, once before the runs: e.g. the first page whose cursor a next-page case passes. */
  setup?: (c: CaseContext) => Promise<void>;
};

/** A next-page case: page one is read (untimed) for its cursor, the timed runs read page two. */
function nextPage(
  name: string,
  first: (c: CaseContext) => Promise<string | null>,
  next: (c: CaseContext, cursor: string | undefined) => Promise<unknown>,
): ScaleCase {
  let cursor: string | undefined;
  return {
    name,
    setup: async (c) => {
      cursor = (await first(c)) ?? undefined;
    },
    run: (c) => next(c, cursor),
  };
}

export const ADMIN_VIEWER: Viewer = {
  kind: "user",
  id: "scale-measure",
  email: "scale@example.com",
  name: "Scale measure",
  role: "admin",
  scopes: scopesForRole("admin"),
  sessionId: "scale-measure",
};

type Raw = Record<string, string>;
const ledgerScreen = (name: string, q: (s: Samples) => Raw): ScaleCase => ({
  name: `ledger screen ${name}`,
  run: (c) => listLedgerEntries(c.db, c.viewer, ledgerSearchSchema.parse(q(c.s))),
});
const ledgerApi = (name: string, q: (s: Samples) => Raw): ScaleCase => ({
  name: `GET /api/v1/ledger ${name}`,
  run: (c) => listLedgerPage(c.db, c.viewer, ledgerApiQuerySchema.parse(q(c.s))),
});
const why = (by: string, value: (s: Samples) => string): ScaleCase => ({
  name: `/why by ${by}`,
  run: (c) => explainWhy(c.db, c.viewer, whyQuerySchema.parse({ [by]: value(c.s) })),
});
const deadLetters = (name: string, q: (s: Samples) => Raw): ScaleCase => ({
  name: `dead letters ${name}`,
  run: (c) => readDeadLettersScreen(c.db, c.viewer, deadLetterSearchSchema.parse(q(c.s))),
});

/** Every filter of the ledger, for the screen and the API alike. */
const LEDGER_FILTERS: [string, (s: Samples) => Raw][] = [
  ["unfiltered", () => ({})],
  ["kind=effect.succeeded", () => ({ kind: "effect.succeeded" })],
  ["kind=effect.* (prefix)", () => ({ kind: "effect.*" })],
  ["kind=two kinds", () => ({ kind: "task.dead_lettered,review.rejected" })],
  ["tool=refund", () => ({ tool: "refund" })],
  ["tool=update_contact (rare)", () => ({ tool: "update_contact" })],
  ["agent=refund", () => ({ agent: "refund" })],
  ["agent=crm-sync (rare)", () => ({ agent: "crm-sync" })],
  ["actor (busy worker)", (s) => ({ actor: s.busyActor })],
  ["actor (rare admin)", (s) => ({ actor: s.rareActor })],
  ["taskId", (s) => ({ taskId: s.taskId })],
  // A long task's page: its stream newest first by seq on the (stream, seq) key (0063; ordered
  // by time instead, the planner walked ledger_entries_at_idx through every partition, 0.5 s at
  // 1M), beside the few entries naming it from other streams (ledger_entries_task_elsewhere_idx).
  ["taskId (20k entries)", (s) => ({ taskId: s.bigTaskId })],
  ["key", (s) => ({ key: s.key })],
  ["from-to (1 h)", (s) => ({ from: s.windowFrom, to: s.windowTo })],
  ["from (open-ended, 30 d)", (s) => ({ from: s.recentFrom })],
  ["q=recipient", (s) => ({ q: s.recipient })],
  ["q=refund id", (s) => ({ q: s.refundId })],
  ["q=Message-ID", (s) => ({ q: s.messageId })],
  ["q=task id", (s) => ({ q: s.taskId })],
  ["q=key prefix", (s) => ({ q: s.key.slice(0, 12) })],
  ["agent+from (refund, 30 d)", (s) => ({ agent: "refund", from: s.recentFrom })],
];

/** The UTC day 365 days before an ISO instant's day: a 366-day window ending on it. */
function yearBefore(iso: string): string {
  return new Date(Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) - 365 * 86_400_000)
    .toISOString()
    .slice(0, 10);
}

export const CASES: ScaleCase[] = [
  ...LEDGER_FILTERS.map(([n, q]) => ledgerScreen(n, q)),
  ...LEDGER_FILTERS.map(([n, q]) => ledgerApi(n, q)),
  nextPage(
    "ledger screen page 2 (cursor)",
    async (c) => (await listLedgerEntries(c.db, c.viewer, ledgerSearchSchema.parse({}))).nextCursor,
    (c, cursor) => listLedgerEntries(c.db, c.viewer, ledgerSearchSchema.parse({ cursor })),
  ),
  nextPage(
    "GET /api/v1/ledger page 2 (cursor)",
    async (c) => (await listLedgerPage(c.db, c.viewer, ledgerApiQuerySchema.parse({}))).nextCursor,
    (c, cursor) => listLedgerPage(c.db, c.viewer, ledgerApiQuerySchema.parse({ cursor })),
  ),
  nextPage(
    "GET /api/v1/ledger agent=refund page 2",
    async (c) =>
      (await listLedgerPage(c.db, c.viewer, ledgerApiQuerySchema.parse({ agent: "refund" })))
        .nextCursor,
    (c, cursor) =>
      listLedgerPage(c.db, c.viewer, ledgerApiQuerySchema.parse({ agent: "refund", cursor })),
  ),
  nextPage(
    "GET /api/v1/ledger taskId (20k entries) page 2",
    async (c) =>
      (await listLedgerPage(c.db, c.viewer, ledgerApiQuerySchema.parse({ taskId: c.s.bigTaskId })))
        .nextCursor,
    (c, cursor) =>
      listLedgerPage(c.db, c.viewer, ledgerApiQuerySchema.parse({ taskId: c.s.bigTaskId, cursor })),
  ),
  { name: "ledger kinds (filter choices)", run: (c) => listLedgerKinds(c.db, c.viewer) },
  why("key", (s) => s.key),
  why("taskId", (s) => s.taskId),
  why("recipient", (s) => s.recipient),
  why("messageId", (s) => s.messageId),
  why("refundId", (s) => s.refundId),
  ...OVERVIEW_WINDOWS.map(
    (window): ScaleCase => ({
      name: `overview window=${window}`,
      run: (c) => getOverview(c.pool, c.viewer, { window }),
    }),
  ),
  { name: "metrics scrape", run: (c) => getMetrics(c.pool, c.viewer, { leaseMs: 30_000 }) },
  // The spend screen reads counters (a few rows per day, agent and model) and the top of
  // tasks_cost_idx; a window of a year, and one before any task, are its widest walks.
  { name: "spend last 30 days", run: (c) => getSpend(c.pool, c.viewer, {}) },
  {
    name: "spend 366 days",
    run: (c) =>
      getSpend(c.pool, c.viewer, {
        from: yearBefore(c.s.windowTo),
        to: c.s.windowTo.slice(0, 10),
      }),
  },
  {
    name: "spend window with no tasks",
    run: (c) => getSpend(c.pool, c.viewer, { from: "2001-01-01", to: "2001-12-31" }),
  },
  {
    name: "tasks list unfiltered",
    run: (c) => listTasks(c.db, c.viewer, taskSearchSchema.parse({})),
  },
  ...TASK_STATUSES.map(
    (status): ScaleCase => ({
      name: `tasks list status=${status}`,
      run: (c) => listTasks(c.db, c.viewer, taskSearchSchema.parse({ status })),
    }),
  ),
  {
    name: "tasks list agent=crm-sync",
    run: (c) => listTasks(c.db, c.viewer, taskSearchSchema.parse({ agent: "crm-sync" })),
  },
  nextPage(
    "tasks list page 2 (before)",
    async (c) => (await listTasks(c.db, c.viewer, taskSearchSchema.parse({}))).olderBefore,
    (c, before) => listTasks(c.db, c.viewer, taskSearchSchema.parse({ before })),
  ),
  // GET /api/v1/tasks: the same query with the API's default page of 50.
  {
    name: "GET /api/v1/tasks unfiltered",
    run: (c) => listTasks(c.db, c.viewer, {}, 50),
  },
  {
    name: "GET /api/v1/tasks status=dead agent=refund",
    run: (c) =>
      listTasks(c.db, c.viewer, taskSearchSchema.parse({ status: "dead", agent: "refund" }), 50),
  },
  { name: "GET /api/v1/agents", run: (c) => listAgents(c.pool, c.viewer) },
  { name: "GET /api/v1/effects/{key}", run: (c) => getEffect(c.db, c.viewer, c.s.key) },
  { name: "dead-letter groups", run: (c) => listDeadLetters(c.db, c.viewer) },
  deadLetters("list unfiltered", () => ({})),
  deadLetters("reason", (s) => ({ reason: s.deadReason })),
  deadLetters("reason+fingerprint", (s) => ({ reason: s.deadReason, fingerprint: s.fingerprint })),
  deadLetters("agent=refund", () => ({ agent: "refund" })),
  deadLetters("tool=refund", () => ({ tool: "refund" })),
  deadLetters("fingerprint", (s) => ({ fingerprint: s.fingerprint })),
  deadLetters("agent=crm-sync (rare)", () => ({ agent: "crm-sync" })),
  deadLetters("tool=update_contact (rare)", () => ({ tool: "update_contact" })),
  ...DEAD_AGE_NAMES.map((age) => deadLetters(`age=${age}`, () => ({ age }))),
  nextPage(
    "dead letters list page 2 (before)",
    async (c) =>
      (await readDeadLettersScreen(c.db, c.viewer, deadLetterSearchSchema.parse({}))).list
        .olderBefore,
    (c, before) => readDeadLettersScreen(c.db, c.viewer, deadLetterSearchSchema.parse({ before })),
  ),
  ...INBOX_KINDS.map(
    (kind): ScaleCase => ({
      name: `inbox kind=${kind}`,
      run: (c) => listInbox(c.pool, c.viewer, inboxSearchSchema.parse({ kind })),
    }),
  ),
  {
    name: "inbox everything",
    run: (c) => listInbox(c.pool, c.viewer, inboxSearchSchema.parse({})),
  },
  { name: "inbox counts (sidebar)", run: (c) => countInbox(c.pool, c.viewer) },
  { name: "approvals", run: (c) => listApprovals(c.db, c.viewer) },
  { name: "approvals screen", run: (c) => getApprovalsScreen(c.db, c.pool, c.viewer) },
  {
    name: "task screen live read (20k entries)",
    run: (c) =>
      getTaskScreen(c.db, c.pool, c.viewer, taskScreenSearchSchema.parse({ id: c.s.bigTaskId })),
  },
  {
    name: "task timeline window from=10000 (20k entries)",
    run: (c) =>
      listTaskTimeline(
        c.db,
        c.viewer,
        c.s.bigTaskId,
        timelineSearchSchema.parse({ from: "10000" }),
      ),
  },
  {
    name: "task screen live read (typical)",
    run: (c) =>
      getTaskScreen(c.db, c.pool, c.viewer, taskScreenSearchSchema.parse({ id: c.s.taskId })),
  },
  { name: "task page (20k entries)", run: (c) => getTaskDetail(c.db, c.viewer, c.s.bigTaskId) },
  {
    name: "task timeline (20k entries)",
    run: (c) => listTaskTimeline(c.db, c.viewer, c.s.bigTaskId),
  },
  { name: "task page (typical)", run: (c) => getTaskDetail(c.db, c.viewer, c.s.taskId) },
];
