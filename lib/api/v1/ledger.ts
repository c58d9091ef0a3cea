// The ledger over HTTP: the append-only record page by page with filters, one effect by its
// key, and "why did it send that?" — the queries the dashboard shares.
import { z } from "zod";
import { getDb, screenReaders, wroteRecently } from "../../server/db";
import { effectDetailSchema, getEffect } from "../../server/queries/get-effect";
import { ledgerApiPageSchema } from "../../server/queries/ledger-entry-dto";
import { ledgerApiQuerySchema } from "../../server/queries/ledger-search";
import { listLedgerPage } from "../../server/queries/list-ledger-entries";
import { explainWhy, whyAnswerSchema, whyQuerySchema } from "../../server/queries/why";
import { defineEndpoint } from "../endpoint";
import { ApiProblem } from "../problems";
import { effectKeyParam } from "./schemas";

export const listLedgerEndpoint = defineEndpoint({
  method: "GET",
  path: "/ledger",
  operationId: "listLedger",
  tag: "Ledger",
  summary: "Ledger entries, newest first, filtered, a page at a time",
  description:
    "Filters combine (all must hold): `kind` (one, a prefix such as `effect.*`, a comma list, or repeated), `agent` (entries of its tasks), `tool` (entries about its effects and approvals), `actor` (exactly as recorded, e.g. `user:rita@example.com`, `token:ci`), `taskId`, `key` (an effect key), `from` (inclusive), `to` (exclusive) and `q`: free text matched exactly against effects' recipients, Message-IDs, refund ids and intent values, effect keys (or a prefix of at least 8 hex digits) and task ids. The same search the /ledger screen uses. Pass `nextCursor` back as `cursor` for the next older page; an entry committed after you passed its position is not in that walk. `data` is hidden without `payloads:read`.",
  scope: "ledger:read",
  query: ledgerApiQuerySchema,
  response: ledgerApiPageSchema,
  problems: [],
  // History reads (the dashboard's export pages through here) may lag on a replica.
  handle: async ({ query, viewer, request }) =>
    listLedgerPage(screenReaders(wroteRecently(request.headers.get("cookie"))).db, viewer, query),
});

export const getEffectEndpoint = defineEndpoint({
  method: "GET",
  path: "/effects/{key}",
  operationId: "getEffect",
  tag: "Ledger",
  summary: "One effect by its key: status, arguments, result, task, step, approvals and history",
  scope: "tasks:read",
  params: effectKeyParam,
  query: z.object({}).strict(),
  response: effectDetailSchema,
  problems: ["not-found"],
  handle: async ({ params, viewer }) => {
    const effect = await getEffect(getDb(), viewer, params.key);
    if (!effect) throw new ApiProblem("not-found", `no effect ${params.key}`);
    return effect;
  },
});

export const whyEndpoint = defineEndpoint({
  method: "GET",
  path: "/why",
  operationId: "explainWhy",
  tag: "Ledger",
  summary: "Why did it send that? From an effect key, task id, recipient, Message-ID or refund id",
  description:
    "Give exactly one of `key`, `taskId`, `recipient` (an email's To address), `messageId` (with or without angle brackets) or `refundId`. For each matching effect, newest first: the effect, the step that ran it, the model decision that led to it (prompt, the tool call chosen and its arguments), the task input, every attempt and failure, who approved, replayed, resumed, rejected or resolved it, and whether it was deduplicated. No match is an empty list, not a 404.",
  scope: "ledger:read",
  query: whyQuerySchema,
  response: whyAnswerSchema,
  problems: [],
  handle: async ({ query, viewer, request }) =>
    explainWhy(screenReaders(wroteRecently(request.headers.get("cookie"))).db, viewer, query),
});
