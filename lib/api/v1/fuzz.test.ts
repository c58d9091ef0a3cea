// Property-based fuzzing (fast-check) of every /api/v1 endpoint in ENDPOINTS, through the route
// handler Next serves, against real PostgreSQL, with a token that holds every scope (so
// authorization never decides). Malformed requests must be refused with a 4xx problem+json that
// the OpenAPI document lists, and write nothing; well-formed requests carrying hostile values
// (NUL, lone surrogates, deep JSON, year 0) must never be a 5xx. Route modules are found from
// each endpoint's path, so a new endpoint is fuzzed as soon as it has a sample in SAMPLES.
import { randomBytes } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { setUpTestDatabase } from "../../../db/testing/database";
import { operator, SCOPES } from "../../domain/access";
import { createApiToken } from "../../server/commands/api-tokens";
import type { Endpoint } from "../endpoint";
import { PROBLEM_BASE } from "../problems";

const t = await setUpTestDatabase("api_fuzz");
process.env.DATABASE_URL = t.appUrl;
const { ENDPOINTS, openApi } = await import("./index");
const { MAX_BODY_BYTES } = await import("../endpoint");

type Handler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** "/tasks/{id}/approve" → app/api/v1/tasks/[id]/approve/route.ts, export named by method. */
async function handlerOf(endpoint: Endpoint): Promise<Handler> {
  const dir = endpoint.path.replace(/\{(\w+)\}/g, "[$1]");
  const file = path.join(HERE, "../../../app/api/v1", dir, "route.ts");
  const module = (await import(file)) as Record<string, Handler | undefined>;
  const handler = module[endpoint.method];
  if (!handler) throw new Error(`${file} exports no ${endpoint.method}`);
  return handler;
}

const made = await createApiToken(t.pool, operator("test"), {
  name: "fuzz-all",
  scopes: [...SCOPES],
});
if (!made.ok) throw new Error(made.message);
const BEARER = `Bearer ${made.value.token}`;

// ---- "Nothing written": every public table's row count and a digest of its rows. ----------

/** Reads may touch a token's last-used time; that is not a write of the request's data. */
const { rows: tables } = await t.ownerPool.query<{ name: string; ident: string; cols: string }>(
  `select c.table_name as name, quote_ident(c.table_name) as ident,
          string_agg(quote_ident(c.column_name), ', ' order by c.ordinal_position) as cols
   from information_schema.columns c
   join information_schema.tables tb using (table_schema, table_name)
   where c.table_schema = 'public' and tb.table_type = 'BASE TABLE'
     and not (c.table_name = 'api_tokens' and c.column_name = 'last_used_at')
   group by c.table_name order by c.table_name`,
);
const SNAPSHOT_SQL = tables
  .map(
    (tb) => `select '${tb.name}' as name, count(*)::int as n,
       md5(coalesce(string_agg(md5(t::text), '' order by md5(t::text)), '')) as digest
     from (select ${tb.cols} from ${tb.ident}) t`,
  )
  .join(" union all ");

async function snapshot(): Promise<Map<string, string>> {
  const { rows } = await t.ownerPool.query<{ name: string; n: number; digest: string }>(
    SNAPSHOT_SQL,
  );
  return new Map(rows.map((r) => [r.name, `${r.n} rows ${r.digest}`]));
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...before.keys()]
    .filter((name) => before.get(name) !== after.get(name))
    .map((name) => `${name}: ${before.get(name)} → ${after.get(name)}`);
}

// ---- Fixtures: each sample is a request that succeeds, so only the corruption can refuse. --

const ANY_AGENT = "fuzz-any";
await t.pool.query(
  `insert into agent_catalog (name, input_schema, tools, published_by)
   values ($1, '{}', '[]', 'test')`,
  [ANY_AGENT],
);

async function deadTask(): Promise<{ id: string; version: number }> {
  const { rows } = await t.pool.query<{ id: string; version: number }>(
    `insert into tasks (agent, input, status, dead_reason, attempts, last_error, created_by)
     values ($1, '{}', 'dead', 'exhausted', 3, '{"message": "fuzz fixture"}', 'test')
     returning id, version`,
    [ANY_AGENT],
  );
  const row = rows[0];
  if (!row) throw new Error("insert returned no task");
  return row;
}

async function unknownOutcome(): Promise<{ id: string; version: number; key: string }> {
  const task = await deadTask();
  const key = randomBytes(32).toString("hex");
  await t.pool.query(
    `insert into effects (key, task_id, step_seq, tool, intent, args, fingerprint, status)
     values ($1, $2, 1, 'send', '{}', '{}', $3, 'started')`,
    [key, task.id, randomBytes(32).toString("hex")],
  );
  return { ...task, key };
}

type Sample = { params?: Record<string, string>; query?: string; body?: Record<string, unknown> };

/** A valid request per operationId, on fresh fixtures. */
const SAMPLES: Record<string, () => Promise<Sample>> = {
  listAgents: async () => ({}),
  listSchedules: async () => ({}),
  enqueueTask: async () => ({ body: { agent: ANY_AGENT, input: { n: 1 } } }),
  listTasks: async () => ({ query: "limit=5" }),
  getTask: async () => ({ params: { id: (await deadTask()).id }, query: "from=1" }),
  listLedger: async () => ({ query: "limit=5" }),
  getEffect: async () => ({ params: { key: (await unknownOutcome()).key } }),
  explainWhy: async () => ({ query: `key=${(await unknownOutcome()).key}` }),
  approveTask: async () => {
    const d = await deadTask();
    return { params: { id: d.id }, body: { version: d.version } };
  },
  rejectTask: async () => {
    const d = await deadTask();
    return { params: { id: d.id }, body: { version: d.version, reason: "fuzz" } };
  },
  replayTask: async () => {
    const d = await deadTask();
    return { params: { id: d.id }, body: { version: d.version, fromStep: 1 } };
  },
  correctTask: async () => {
    const d = await deadTask();
    return { params: { id: d.id }, body: { version: d.version, input: { n: 2 } } };
  },
  cancelTask: async () => {
    const d = await deadTask();
    return { params: { id: d.id }, body: { version: d.version } };
  },
  sendEvent: async () => ({ body: { name: "fuzz.event", payload: { n: 1 } } }),
  resolveEffect: async () => {
    const u = await unknownOutcome();
    return {
      params: { key: u.key },
      body: { taskId: u.id, version: u.version, happened: false },
    };
  },
};

// ---- Requests as small recipes, so a 2 MB counterexample prints as one line. --------------

/** Text, or text repeated n times. */
type Piece = string | readonly [string, number];
type Case = {
  family: string;
  params?: Record<string, string>;
  /** The raw query string, without "?". */
  query?: Piece[];
  headers?: Record<string, string>;
  body?: Piece[] | { bytes: readonly number[] };
  /** null: no Content-Type at all (the body is sent as bytes). */
  contentType?: string | null;
};

const joined = (pieces: readonly Piece[]): string =>
  pieces.map((p) => (typeof p === "string" ? p : p[0].repeat(p[1]))).join("");

/** Members in order, so "__proto__" stays an ordinary key of the JSON text. */
function objectText(entries: [string, Piece[]][]): Piece[] {
  const out: Piece[] = ["{"];
  entries.forEach(([key, value], i) => {
    out.push(`${i ? "," : ""}${JSON.stringify(key)}:`, ...value);
  });
  out.push("}");
  return out;
}

const json = (value: unknown): Piece[] => [JSON.stringify(value) ?? "null"];

function sampleEntries(body: Record<string, unknown> | undefined): [string, Piece[]][] {
  return Object.entries(body ?? {}).map(([k, v]) => [k, json(v)]);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Percent-encoded as a browser sends it (a lone surrogate cannot be: it becomes U+FFFD). */
function encoded(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, "\ufffd"));
}

type Built = { request: Request; params: Record<string, string>; summary: string };

function build(endpoint: Endpoint, sample: Sample, c: Case): Built {
  const params = { ...sample.params, ...c.params };
  const route = endpoint.path.replace(/\{(\w+)\}/g, (_, name) => encoded(params[name] ?? ""));
  const query = c.query ? joined(c.query) : (sample.query ?? "");
  const url = `http://localhost/api/v1${route}${query ? `?${query}` : ""}`;
  const headers = new Headers({ authorization: BEARER, ...c.headers });
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (endpoint.body) {
    const recipe = c.body ?? objectText(sampleEntries(sample.body));
    body = "bytes" in recipe ? new Uint8Array(recipe.bytes) : joined(recipe);
    const type = c.contentType === undefined ? "application/json" : c.contentType;
    if (type === null) body = typeof body === "string" ? new TextEncoder().encode(body) : body;
    else headers.set("content-type", type);
  }
  const shown = typeof body === "string" ? body : body ? `<${body.length} bytes>` : "";
  const summary = `${endpoint.method} ${url.length > 1_500 ? `${url.slice(0, 1_500)}…` : url} [${c.family}] params=${JSON.stringify(
    params,
  ).slice(0, 200)} content-type=${headers.get("content-type")} body(${
    typeof body === "string" ? body.length : 0
  } chars)=${shown.slice(0, 300)}`;
  return { request: new Request(url, { method: endpoint.method, headers, body }), params, summary };
}

/** A zod verdict that survives a schema throwing (too deep for its recursion, say). */
function accepts(schema: z.ZodType | undefined, value: unknown): boolean {
  if (!schema) return true;
  try {
    return schema.safeParse(value).success;
  } catch {
    return false;
  }
}

const JSON_TYPES = new Set(["application/json", "application/json; charset=utf-8"]);

/**
 * Whether the request is one the endpoint should act on, judged independently of the code under
 * test: the query read with Object.fromEntries (every key an own key), the body with JSON.parse.
 */
function wellFormed(endpoint: Endpoint, c: Case, built: Built): boolean {
  const url = new URL(built.request.url);
  const query = Object.fromEntries(
    [...new Set(url.searchParams.keys())].map((k) => {
      const values = url.searchParams.getAll(k);
      return [k, values.length === 1 ? values[0] : values];
    }),
  );
  if (!accepts(endpoint.params, built.params) || !accepts(endpoint.query, query)) return false;
  for (const header of endpoint.requestHeaders ?? []) {
    if (!accepts(header.schema, built.request.headers.get(header.name) ?? undefined)) return false;
  }
  if (!endpoint.body) return true;
  const type = built.request.headers.get("content-type");
  if (c.contentType === null || !type || !JSON_TYPES.has(type.toLowerCase())) return false;
  if (Number(built.request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES) return false;
  const recipe = c.body;
  let text: string;
  if (recipe && "bytes" in recipe) {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array(recipe.bytes));
    } catch {
      return false;
    }
  } else {
    text = recipe ? joined(recipe) : "";
  }
  if (recipe && Buffer.byteLength(text) > MAX_BODY_BYTES) return false;
  if (!recipe) return true;
  try {
    return accepts(endpoint.body, JSON.parse(text));
  } catch {
    return false;
  }
}

// ---- Arbitraries. -------------------------------------------------------------------------

const NASTY = [
  "\u0000",
  "\ud800",
  "\udfff",
  "\ud83d",
  "\u202e",
  "\u200f",
  "\u200d",
  "\ufeff",
  "\uffff",
  "\u0301",
  "👩‍👩‍👧",
  "🔥",
  "𝕏",
  "é",
  "\\",
  '"',
  "'",
  "\n",
  "%00",
  "<script>",
  "{{x}}",
  " ",
];
const nastyUnit = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }) },
);
const nasty = (maxLength = 24, minLength = 0) =>
  fc.string({ unit: nastyUnit, minLength, maxLength });

const scalar = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  nasty(),
);
const smallJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(nasty(8), tie("value"), { maxKeys: 3 }),
  ),
})).value;

/** Number texts JSON.parse reads as something a schema may not expect (Infinity, -0). */
const rawNumber = fc.constantFrom(
  "1e309",
  "-1e309",
  "-0",
  "1.0",
  "1E2",
  "0.5",
  "-1",
  "0",
  "2147483648",
  "9007199254740993",
  "1e-400",
);

/** A JSON string of 100 KB to ~2.2 MB, some of it past MAX_BODY_BYTES. */
const hugeString: fc.Arbitrary<Piece[]> = fc
  .record({
    unit: fc.constantFrom("x", "é", "\\u0000", "🔥", "\\ud800", " ", "\u202e"),
    bytes: fc.integer({ min: 100_000, max: 2_200_000 }),
  })
  .map(({ unit, bytes }) => ['"', [unit, Math.ceil(bytes / Buffer.byteLength(unit))], '"']);

/** Arrays or objects nested `depth` deep, written as text (no recursion to build them). */
const nested = (min: number, max: number): fc.Arbitrary<Piece[]> =>
  fc
    .record({
      depth: fc.integer({ min, max }),
      kind: fc.constantFrom("array", "object", "mixed"),
    })
    .map(({ depth, kind }): Piece[] =>
      kind === "array"
        ? [
            ["[", depth],
            ["]", depth],
          ]
        : kind === "object"
          ? [['{"a":', depth], "1", ["}", depth]]
          : [['[{"a":', depth], "null", ["}]", depth]],
    );

const poison: fc.Arbitrary<Piece[]> = fc.oneof(
  scalar.map(json),
  smallJson.map(json),
  rawNumber.map((n) => [n]),
  hugeString,
  nested(1_000, 20_000),
);

const KEY_TRAPS = ["__proto__", "constructor", "prototype", "toString", "id", "status", "actor"];
const unknownKey = fc.oneof(fc.constantFrom(...KEY_TRAPS), nasty(12, 1));

// ---- Malformed: every family makes at least one part of the request wrong. ----------------

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  $ref?: string;
};

const jsonSchemaOf = (schema: z.ZodType) =>
  z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;

/** The object shapes a body may take (one per union member). */
function variantsOf(schema: JsonSchema): JsonSchema[] {
  const members = schema.oneOf ?? schema.anyOf;
  return members ? members.flatMap(variantsOf) : [schema];
}

/** Tried before the random cases: each body field 10 000 deep, each path parameter with a NUL. */
function malformedExamples(endpoint: Endpoint, sample: Sample): [Case][] {
  const deep: Piece[] = [['[{"a":', 10_000], "null", ["}]", 10_000]];
  const entries = sampleEntries(sample.body);
  const keys = endpoint.body
    ? [...new Set([...Object.keys(sample.body ?? {}), ...bodyKeys(endpoint.body)])]
    : [];
  return [
    ...keys.map((key): [Case] => [
      {
        family: `corrupt field ${key}`,
        body: objectText([...entries.filter(([k]) => k !== key), [key, deep]]),
      },
    ]),
    // An unknown query parameter whatever its name, "__proto__" included.
    ...(endpoint.query ? [[{ family: "bad query", query: ["__proto__=1"] }] as [Case]] : []),
    ...Object.entries(sample.params ?? {}).map(([name, value]): [Case] => [
      { family: `bad path ${name}`, params: { [name]: `${value}\u0000` } },
    ]),
  ];
}

function bodyKeys(schema: z.ZodType): string[] {
  return variantsOf(jsonSchemaOf(schema)).flatMap((v) => Object.keys(v.properties ?? {}));
}

function malformedCases(endpoint: Endpoint, sample: Sample): fc.Arbitrary<Case> {
  const families: fc.Arbitrary<Case>[] = [];
  if (endpoint.body) {
    const base = objectText(sampleEntries(sample.body));
    const baseText = joined(base);
    const keys = [...new Set([...Object.keys(sample.body ?? {}), ...bodyKeys(endpoint.body)])];
    const without = (gone: string[]) =>
      sampleEntries(sample.body).filter(([k]) => !gone.includes(k));
    families.push(
      fc
        .oneof(
          fc.nat().map((i) => baseText.slice(0, i % baseText.length)),
          fc
            .tuple(fc.nat(), fc.constantFrom(..."{}[],:\"\\'", "\u0000", "\u0001", "NaN"))
            .map(([i, s]) => {
              const at = i % (baseText.length + 1);
              return baseText.slice(0, at) + s + baseText.slice(at);
            }),
          fc.constantFrom(
            "",
            " ",
            "{",
            "[",
            "null,",
            "{'agent':'x'}",
            '{"a":1,}',
            "[1,]",
            "NaN",
            "Infinity",
            "undefined",
            '{"a":01}',
            '"\\x41"',
            '"\\ud800',
            "\ufeff{}",
            '{"a":"\u0000"}',
            "// comment\n{}",
            "{} {}",
            "tru",
            "{a:1}",
          ),
          nasty(40),
        )
        .map((text): Case => ({ family: "malformed JSON", body: [text] })),
      fc
        .constantFrom(
          [0xff],
          [0xc0, 0x80],
          [0xed, 0xa0, 0x80],
          [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d],
          [0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d],
        )
        .map((bytes): Case => ({ family: "not UTF-8", body: { bytes } })),
      fc
        .oneof(
          fc
            .oneof(scalar, fc.array(smallJson, { maxLength: 4 }), fc.constant([sample.body ?? {}]))
            .map(json),
          nested(1_000, 20_000),
        )
        .map((body): Case => ({ family: "wrong top-level type", body })),
      fc.tuple(fc.constantFrom(...keys), poison).map(
        ([key, value]): Case => ({
          family: `corrupt field ${key}`,
          body: objectText([...without([key]), [key, value]]),
        }),
      ),
      fc
        .subarray(Object.keys(sample.body ?? {}), { minLength: 1 })
        .map((gone): Case => ({ family: "missing fields", body: objectText(without(gone)) })),
      fc.array(fc.tuple(unknownKey, smallJson), { minLength: 1, maxLength: 3 }).map(
        (extra): Case => ({
          family: "unknown fields",
          body: objectText([
            ...without([]),
            ...extra.map(([k, v]): [string, Piece[]] => [k, json(v)]),
          ]),
        }),
      ),
      fc.integer({ min: MAX_BODY_BYTES + 1, max: 2_200_000 }).map(
        (bytes): Case => ({
          family: "body past the size limit",
          body: objectText([...without([]), ["padding", ['"', ["x", bytes], '"']]]),
        }),
      ),
      fc
        .oneof(
          fc.constantFrom(
            null,
            "text/plain",
            "text/plain;charset=UTF-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=----fuzz",
            "application/xml",
            "text/json",
            "application/jsonx",
            "application/json5",
            "application/javascript",
            "application/ld+json-seq",
            "json",
            "*/*",
            "",
          ),
          fc.stringMatching(/^[a-z]{1,8}\/[a-z.+-]{1,12}$/).filter((s) => !/json/i.test(s)),
        )
        .map((contentType): Case => ({ family: "not JSON content type", contentType })),
      fc.constantFrom("1048577", "99999999999", "1e12").map(
        (length): Case => ({
          family: "declared too large",
          headers: { "content-length": length },
        }),
      ),
    );
  }
  for (const name of Object.keys(sample.params ?? {})) {
    const valid = sample.params?.[name] ?? "";
    families.push(
      fc
        .oneof(
          nasty(40),
          fc.constantFrom("", " ", "..", "../../etc/passwd", "%00", "null", "0", "-1", "1e9"),
          fc.constantFrom(
            `{${valid}}`,
            `${valid} x`,
            valid.replaceAll("-", ""),
            valid.slice(1),
            `${valid}0`,
            valid.replace(/[0-9a-f]/, "g"),
            `${valid}\u0000`,
            valid + valid,
            valid.toUpperCase(),
          ),
          fc.integer({ min: 1_000, max: 100_000 }).map((n) => "a".repeat(n)),
        )
        .map((value): Case => ({ family: `bad path ${name}`, params: { [name]: value } })),
    );
  }
  if (endpoint.query) {
    const known = Object.keys(jsonSchemaOf(endpoint.query).properties ?? {});
    const key = fc.oneof(fc.constantFrom(...known, ...KEY_TRAPS), nasty(10, 1));
    const value: fc.Arbitrary<Piece[]> = fc.oneof(
      nasty(20).map((s) => [encoded(s)]),
      fc
        .constantFrom("", "%ZZ", "%", "%FF%FE", "%ED%A0%80", "%00", "0", "-1", "1e3", "abc", "+")
        .map((s): Piece[] => [s]),
      fc.integer({ min: 1_000, max: 200_000 }).map((n): Piece[] => [["9", n]]),
    );
    families.push(
      fc
        .array(fc.tuple(key, value), { minLength: 1, maxLength: 4 })
        .chain((pairs) =>
          // A repeated key is a list, which no query field takes.
          fc.boolean().map((repeat) => (repeat ? [...pairs, ...pairs] : pairs)),
        )
        .map(
          (pairs): Case => ({
            family: "bad query",
            query: pairs.flatMap(([k, v], i): Piece[] => [`${i ? "&" : ""}${encoded(k)}=`, ...v]),
          }),
        ),
    );
  }
  for (const header of endpoint.requestHeaders ?? []) {
    families.push(
      fc
        .oneof(
          fc.constantFrom("", '""', "\u00e9", "caf\u00e9", "a\tb", "\u00ff".repeat(10)),
          fc.integer({ min: 256, max: 5_000 }).map((n) => "k".repeat(n)),
          fc
            .string({ unit: "binary-ascii", minLength: 1, maxLength: 30 })
            .map((s) => s.replace(/[\0\r\n]/g, "") || "\u00a0"),
        )
        .map(
          (value): Case => ({
            family: `bad ${header.name} header`,
            headers: { [header.name]: value },
          }),
        ),
    );
  }
  if (families.length === 0) throw new Error(`${endpoint.operationId} has no part to corrupt`);
  return fc.oneof(...families);
}

// ---- Hostile but well-formed values, from each field's JSON Schema. ----------------------

/** JSON that the schema's `z.json()` takes but PostgreSQL or the ledger may not. */
const hostileJson: fc.Arbitrary<Piece[]> = fc.oneof(
  smallJson.map(json),
  fc.dictionary(nasty(6, 1), scalar, { minKeys: 1, maxKeys: 3 }).map(json),
  fc.constantFrom("\u0000", "\ud800", "a\udfffb", "\u202eevil").map(json),
  rawNumber.map((n) => [n]),
  nested(60, 300),
  nested(1_000, 20_000),
  hugeString,
);

const YEAR_0 = new Date("0000-01-01T00:00:00.000Z");
const YEAR_9999 = new Date("9999-12-31T23:59:59.999Z");
const hostileDate = fc
  .tuple(
    fc.date({ min: YEAR_0, max: YEAR_9999, noInvalidDate: true }),
    fc.constantFrom("Z", "+23:59", "-23:59", "+00:00", "+14:00"),
  )
  .map(([d, zone]) => d.toISOString().replace("Z", zone));

/** Where a value goes: a JSON body member, or a query parameter (percent-encoded text). */
type Mode = "json" | "query";

const text =
  (mode: Mode) =>
  (value: string): Piece[] =>
    mode === "json" ? json(value) : [encoded(value)];

/** A string of `n` copies of `unit`, as a recipe. */
function filled(unit: string, n: number, mode: Mode): Piece[] {
  return mode === "json"
    ? ['"', [JSON.stringify(unit).slice(1, -1), n], '"']
    : [[encoded(unit), n]];
}

/** Values of the field's own type and bounds, drawn from the unicode edge and the extremes. */
function hostileFor(schema: JsonSchema, mode: Mode): fc.Arbitrary<Piece[]> {
  const literal = (v: unknown): Piece[] => (mode === "json" ? json(v) : [encoded(String(v))]);
  if (schema.const !== undefined) return fc.constant(literal(schema.const));
  if (schema.enum) return fc.constantFrom(...schema.enum).map(literal);
  const members = schema.anyOf ?? schema.oneOf;
  if (members) return fc.oneof(...members.map((m) => hostileFor(m, mode)));
  switch (schema.type) {
    case "string": {
      if (schema.format === "date-time") return hostileDate.map(text(mode));
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).map(text(mode));
      const min = schema.minLength ?? 0;
      const max = schema.maxLength ?? 2_000;
      return fc.oneof(
        nasty(Math.min(max, 40), min).map(text(mode)),
        fc
          .constantFrom(...NASTY)
          .map((unit) => filled(unit, Math.max(min, Math.floor(max / unit.length)), mode)),
      );
    }
    case "integer":
    case "number": {
      const min = schema.minimum ?? -(2 ** 53);
      const max = schema.maximum ?? 2 ** 53;
      const inRange =
        schema.type === "integer"
          ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) })
          : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      return fc.oneof(fc.constantFrom(min, max), inRange).map(literal);
    }
    case "boolean":
      return fc.boolean().map(literal);
    case "null":
      return fc.constant(literal(null));
    case "object":
      if (schema.properties && mode === "json") {
        const props = Object.entries(schema.properties);
        return fc
          .tuple(...props.map(([, s]) => fc.option(hostileFor(s, mode), { nil: undefined })))
          .map((values) =>
            objectText(
              props
                .map(([k], i): [string, Piece[] | undefined] => [k, values[i]])
                .filter((e): e is [string, Piece[]] => e[1] !== undefined),
            ),
          );
      }
      return mode === "json" ? hostileJson : nasty(40).map(text(mode));
    default:
      return mode === "json" ? hostileJson : nasty(40).map(text(mode));
  }
}

/** Fields that replace or join a fresh sample's body members or query parameters. */
type Hostile = { mode: Mode; variant: number; fields: Record<string, Piece[]> };

function hostileCases(endpoint: Endpoint, sample: Sample): fc.Arbitrary<Hostile> {
  const mode: Mode = endpoint.body ? "json" : "query";
  const schema = endpoint.body ?? endpoint.query;
  if (!schema) throw new Error(`${endpoint.operationId} takes no body or query`);
  const variants = variantsOf(jsonSchemaOf(schema));
  const present = new Set(
    mode === "json"
      ? Object.keys(sample.body ?? {})
      : new URLSearchParams(sample.query ?? "").keys(),
  );
  return fc.nat({ max: variants.length - 1 }).chain((variant) => {
    const props = Object.entries(variants[variant]?.properties ?? {});
    const required = new Set(variants[variant]?.required ?? []);
    // Forced: constants (a union's tag) and required fields the sample lacks.
    const forced = props.filter(
      ([k, s]) => s.const !== undefined || (required.has(k) && !present.has(k)),
    );
    const free = props.filter(([k]) => !forced.some(([f]) => f === k));
    return fc
      .record({
        forced: fc.tuple(...forced.map(([, s]) => hostileFor(s, mode))),
        chosen: free.length ? fc.subarray(free, { minLength: 1 }) : fc.constant(free),
      })
      .chain(({ forced: values, chosen }) =>
        fc.tuple(...chosen.map(([, s]) => hostileFor(s, mode))).map(
          (chosenValues): Hostile => ({
            mode,
            variant,
            fields: Object.fromEntries([
              ...forced.map(([k], i) => [k, values[i] as Piece[]]),
              ...chosen.map(([k], i) => [k, chosenValues[i] as Piece[]]),
            ]),
          }),
        ),
      );
  });
}

/** Free text or free JSON: where a NUL is well-formed. */
const textual = (s: JsonSchema) =>
  s.$ref !== undefined ||
  (s.type === "string" && !s.pattern && !s.format && !s.enum) ||
  (s.type === undefined && !s.anyOf && !s.oneOf && !s.enum && s.const === undefined);

/** Tried before the random cases: each free-text field once with a NUL in it. */
function hostileExamples(endpoint: Endpoint, sample: Sample): [Hostile][] {
  const mode: Mode = endpoint.body ? "json" : "query";
  const schema = endpoint.body ?? endpoint.query;
  if (!schema) return [];
  const value = (v: unknown): Piece[] => (mode === "json" ? json(v) : [encoded(String(v))]);
  const present = new Set(
    mode === "json"
      ? Object.keys(sample.body ?? {})
      : new URLSearchParams(sample.query ?? "").keys(),
  );
  return variantsOf(jsonSchemaOf(schema)).flatMap((variant, index) => {
    const props = Object.entries(variant.properties ?? {});
    const required = new Set(variant.required ?? []);
    const forced = props.filter(
      ([k, s]) => s.const !== undefined || (required.has(k) && !present.has(k)),
    );
    if (forced.some(([, s]) => s.const === undefined && !textual(s))) return [];
    const base = Object.fromEntries(
      forced.map(([k, s]) => [k, value(s.const !== undefined ? s.const : "a\u0000b")]),
    );
    return props
      .filter(([, s]) => textual(s))
      .map(([k]): [Hostile] => [
        { mode, variant: index, fields: { ...base, [k]: value("a\u0000b") } },
      ]);
  });
}

function hostileCase(endpoint: Endpoint, sample: Sample, h: Hostile): Case {
  const family = `hostile ${Object.keys(h.fields).join(",")}`;
  if (h.mode === "query") {
    const kept = [...new URLSearchParams(sample.query ?? "")]
      .filter(([k]) => !(k in h.fields))
      .map(([k, v]): [string, Piece[]] => [k, [encoded(v)]]);
    return {
      family,
      query: [...kept, ...Object.entries(h.fields)].flatMap(([k, v], i): Piece[] => [
        `${i ? "&" : ""}${encoded(k)}=`,
        ...v,
      ]),
    };
  }
  const variant = variantsOf(jsonSchemaOf(endpoint.body as z.ZodType))[h.variant];
  const allowed = new Set(Object.keys(variant?.properties ?? {}));
  const kept = sampleEntries(sample.body).filter(([k]) => allowed.has(k) && !(k in h.fields));
  return { family, body: objectText([...kept, ...Object.entries(h.fields)]) };
}

// ---- Calling and checking. ----------------------------------------------------------------

const logged: string[] = [];

/** An error with its causes (a driver error wraps the database's message). */
function explain(value: unknown): string {
  if (!(value instanceof Error)) return String(value);
  const cause = value.cause === undefined ? "" : `\n  caused by: ${explain(value.cause)}`;
  const frames = (value.stack ?? "")
    .split("\n")
    .filter((l) => l.startsWith("    at "))
    .slice(0, 6);
  return [`${value.name}: ${value.message.slice(0, 300)}${cause}`, ...frames].join("\n");
}

vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
  logged.push(args.map(explain).join(" "));
});

type Document = {
  paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
  components: { schemas: Record<string, unknown> };
};
const validators = new Map<string, z.ZodType | null>();

/** The documented schema of one response, as a zod validator (components become $defs). */
function documented(endpoint: Endpoint, status: number): z.ZodType | null {
  const id = `${endpoint.method} ${endpoint.path} ${status}`;
  if (!validators.has(id)) {
    const doc = openApi() as Document;
    const response =
      doc.paths[endpoint.path]?.[endpoint.method.toLowerCase()]?.responses[String(status)];
    const content = response?.content as Record<string, { schema: unknown }> | undefined;
    const media = content ? Object.values(content)[0] : undefined;
    validators.set(
      id,
      media
        ? z.fromJSONSchema(
            JSON.parse(
              JSON.stringify({
                ...(media.schema as object),
                $defs: doc.components.schemas,
              }).replaceAll("#/components/schemas/", "#/$defs/"),
            ),
          )
        : null,
    );
  }
  return validators.get(id) ?? null;
}

const problemShape = (status: number) =>
  z.looseObject({
    type: z.string().startsWith(PROBLEM_BASE),
    title: z.string().min(1),
    status: z.literal(status),
  });

const tally = new Map<string, number>();
const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);

/**
 * Sends one request and checks it: never a 5xx or a logged error; a refusal is a documented
 * problem+json that wrote nothing; a malformed request is always refused.
 */
async function exercise(endpoint: Endpoint, handler: Handler, sample: Sample, c: Case) {
  const built = build(endpoint, sample, c);
  const malformed = !wellFormed(endpoint, c, built);
  logged.length = 0;
  const before = await snapshot();
  const response = await handler(built.request, { params: Promise.resolve(built.params) });
  const text = await response.text();
  const after = await snapshot();
  const { status } = response;
  count(`${endpoint.operationId} ${malformed ? "malformed" : "well-formed"} → ${status}`);
  const say = (what: string) =>
    `${what}\n  request: ${built.summary}\n  answered ${status}: ${text.slice(0, 400)}${
      logged.length ? `\n  logged: ${logged.join("\n          ").slice(0, 2_000)}` : ""
    }`;
  if (status >= 500 || logged.length) throw new Error(say("a server error"));
  if (malformed && (status < 400 || status >= 500))
    throw new Error(say("a malformed request was not refused"));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(say("the answer is not JSON"));
  }
  const schema = documented(endpoint, status);
  if (!schema) throw new Error(say(`${status} is not documented for this operation`));
  const valid = schema.safeParse(body);
  if (!valid.success) {
    throw new Error(
      say(`the body does not match the documented schema: ${valid.error.message.slice(0, 400)}`),
    );
  }
  if (endpoint.method === "GET" && changed(before, after).length) {
    throw new Error(say(`a read wrote: ${changed(before, after).join("; ")}`));
  }
  if (status >= 400) {
    if (response.headers.get("content-type") !== "application/problem+json") {
      throw new Error(say(`content-type ${response.headers.get("content-type")}`));
    }
    const shape = problemShape(status).safeParse(body);
    if (!shape.success) throw new Error(say(`not a problem: ${shape.error.message.slice(0, 300)}`));
    const writes = changed(before, after);
    if (writes.length) throw new Error(say(`a refused request wrote: ${writes.join("; ")}`));
  }
  return { malformed, status };
}

// ---- The properties, per endpoint. --------------------------------------------------------

const durations: string[] = [];
afterAll(() => {
  console.log(`fuzz durations:\n  ${durations.join("\n  ")}`);
  console.log(
    `fuzz outcomes:\n  ${[...tally.entries()]
      .sort()
      .map(([k, n]) => `${k}: ${n}`)
      .join("\n  ")}`,
  );
});

for (const endpoint of ENDPOINTS) {
  describe(`${endpoint.method} /api/v1${endpoint.path}`, () => {
    const makeSample = SAMPLES[endpoint.operationId];
    if (!makeSample) {
      it("has a sample request to corrupt", () => {
        expect.fail(`add a valid request for ${endpoint.operationId} to SAMPLES`);
      });
      return;
    }

    it("refuses malformed requests with a documented 4xx problem and writes nothing", async () => {
      const started = Date.now();
      const handler = await handlerOf(endpoint);
      const sample = await makeSample();
      await fc.assert(
        fc.asyncProperty(malformedCases(endpoint, sample), async (c) => {
          fc.pre(!wellFormed(endpoint, c, build(endpoint, sample, c)));
          await exercise(endpoint, handler, sample, c);
        }),
        { numRuns: 50, maxSkipsPerRun: 20, examples: malformedExamples(endpoint, sample) },
      );
      // The sample itself succeeds, on the same fixture: only the corruptions were refused.
      const plain = await exercise(endpoint, handler, sample, { family: "sample" });
      expect(plain.malformed).toBe(false);
      expect(plain.status).toBeLessThan(300);
      durations.push(`${endpoint.operationId} malformed: ${Date.now() - started} ms`);
    }, 300_000);

    if (endpoint.body || endpoint.query) {
      it("answers hostile values in well-formed fields without a 5xx; a refusal writes nothing", async () => {
        const started = Date.now();
        const handler = await handlerOf(endpoint);
        const shape = await makeSample();
        await fc.assert(
          fc.asyncProperty(hostileCases(endpoint, shape), async (h) => {
            // A fresh fixture each run: a well-formed request may legitimately act on it.
            const sample = await makeSample();
            await exercise(endpoint, handler, sample, hostileCase(endpoint, sample, h));
          }),
          { numRuns: 40, examples: hostileExamples(endpoint, shape) },
        );
        durations.push(`${endpoint.operationId} hostile: ${Date.now() - started} ms`);
      }, 300_000);
    }
  });
}

// ---- Cursors at the edges of every type they carry. ---------------------------------------
// A cursor is opaque to the caller but not to PostgreSQL: a time past year 9999 (22009) or an id
// past bigint must be a 400 the API gives, never the database's error as a 500.

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64url");
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const LEDGER_CURSORS: [cursor: string, ok: boolean][] = [
  [b64("0.1"), true],
  [b64(`${LAST_MS}.1`), true],
  [b64(`${LAST_MS + 1}.1`), false],
  ["OTk5OTk5OTk5OTk5OTk5LjE", false],
  [b64("8640000000000000.1"), false],
  [b64(`1.${Number.MAX_SAFE_INTEGER}`), true],
  [b64(`1.${Number.MAX_SAFE_INTEGER + 1}`), false],
  [b64("1.9999999999999999"), false],
  [b64("1.9223372036854775808"), false],
  [b64("1.0"), false],
  [b64("-1.1"), false],
  [b64("1.1 "), false],
  [b64("1e3.1"), false],
  ["", false],
  ["====", false],
  ["%00", false],
  ["x".repeat(65), false],
];
const TASK_ID = "00000000-0000-4000-8000-000000000000";
const TASK_CURSORS: [cursor: string, ok: boolean][] = [
  [`1970-01-01T00:00:00.000000Z_${TASK_ID}`, true],
  [`9999-12-31T23:59:59.999999Z_${TASK_ID}`, true],
  [`1969-12-31T23:59:59.999999Z_${TASK_ID}`, false],
  [`0000-01-01T00:00:00.000000Z_${TASK_ID}`, false],
  [`+10000-01-01T00:00:00.000000Z_${TASK_ID}`, false],
  [`2025-02-30T00:00:00.000000Z_${TASK_ID}`, false],
  [`2025-01-01T24:00:00.000000Z_${TASK_ID}`, false],
  [`2025-01-01T00:00:60.000000Z_${TASK_ID}`, false],
  [`2025-01-01T00:00:00.000000Z_ffffffff-ffff-ffff-ffff-ffffffffffff`, true],
  [`2025-01-01T00:00:00.000000Z_${TASK_ID.toUpperCase()}x`, false],
  ["", false],
];

describe("cursors at the edges of every type", () => {
  const cases: [operationId: string, cursors: [string, boolean][]][] = [
    ["listLedger", LEDGER_CURSORS],
    ["listTasks", TASK_CURSORS],
  ];
  for (const [operationId, cursors] of cases) {
    it(`${operationId}: an edge cursor is a page or a 400, never a 5xx`, async () => {
      const endpoint = ENDPOINTS.find((e) => e.operationId === operationId);
      if (!endpoint) throw new Error(`no endpoint ${operationId}`);
      const handler = await handlerOf(endpoint);
      for (const [cursor, ok] of cursors) {
        const url = `http://localhost/api/v1${endpoint.path}?cursor=${encodeURIComponent(cursor)}`;
        const response = await handler(new Request(url, { headers: { authorization: BEARER } }), {
          params: Promise.resolve({}),
        });
        const body = (await response.json()) as { type?: string };
        expect(response.status, `${operationId} cursor ${JSON.stringify(cursor)}`).toBe(
          ok ? 200 : 400,
        );
        if (!ok) expect(body.type).toBe(`${PROBLEM_BASE}invalid-request`);
      }
    });
  }
});
