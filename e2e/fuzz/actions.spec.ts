// Property-based fuzzing of every server action the source declares, over HTTP against the built
// app, signed in as admin (every scope, so authorization never decides). Malformed arguments —
// a field poisoned with an object, deep nesting or a huge string, no known field at all, wrong
// argument lists, form-like objects, real multipart forms — must be refused with a 4xx result
// and write nothing. Well-formed arguments carrying hostile text (NUL, lone surrogates, bidi
// overrides) may succeed or be refused, but never fail on the server. signOut is not fuzzed: it
// takes no input, and calling it ends the session the other calls use.
import fc from "fast-check";
import type pg from "pg";
import { DEMO_PASSWORD, DEMO_USERS } from "../../lib/server/commands/users";
import {
  type ActionEndpoint,
  callAction,
  concretePath,
  type Observed,
  readActionEndpoints,
} from "../authz/calls";
import { expectedOutcome, MATRIX, type MatrixRow } from "../authz/matrix";
import { matrixContext } from "../authz/matrix-fixtures";
import { type Credentials, signInCookie } from "../authz/principals";
import { backgroundSettled, changedTables, snapshot } from "../authz/snapshot";
import { type ScannedAction, scanSource } from "../authz/source-scan";
import { expect, test } from "../fixtures";
import {
  hugeString,
  junk,
  junkKey,
  materialize,
  nasty,
  poison,
  type Recipe,
  scalar,
} from "./arbitraries";
import { callActionWithForm, type FormField } from "./form-call";

const SKIPPED: Record<string, string> = {
  "action:signOut": "takes no input, and ends the session the other calls use",
};

/** What refusing junk looks like for the actions anyone may call (no ActionResult there). */
const PUBLIC_REFUSAL: Record<string, (outcome: string) => boolean> = {
  "action:signIn": (o) => o.startsWith('returned {"error":'),
  "action:signInWithSso": (o) => o === "redirect:/sign-in",
};

const actions = scanSource().actions.filter((a) => !(a.target in SKIPPED));

/** A file entry in a multipart form (Blobs do not print in a counterexample). */
type FieldSpec = [name: string, value: string | { file: string }];

type Case =
  | { family: string; form: Record<string, unknown>; poisoned?: [string, Recipe] }
  | { family: string; args: unknown[] }
  | { family: string; multipart: FieldSpec[]; huge?: [string, Recipe] };

const isForm = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Malformed calls, built around the matrix's valid arguments (`form` is the object argument). */
function malformed(form: Record<string, unknown> | undefined): fc.Arbitrary<Case> {
  const keys = Object.keys(form ?? {});
  const families: fc.Arbitrary<Case>[] = [
    fc
      .array(fc.oneof(scalar, fc.array(junk, { maxLength: 3 })), { maxLength: 3 })
      .map((args): Case => ({ family: "wrong arguments", args })),
    fc
      .dictionary(junkKey, junk, { maxKeys: 4 })
      .map((f): Case => ({ family: "no known field", form: f })),
    fc
      .array(fc.tuple(formName, nasty(20)), { maxLength: 3 })
      .map((extra): Case => ({ family: "no known field, multipart", multipart: extra })),
  ];
  if (form && keys.length > 0) {
    const stringified = Object.entries(form).map(([k, v]): FieldSpec => [k, String(v)]);
    families.push(
      fc
        .record({
          key: fc.constantFrom(...keys),
          value: poison,
          others: fc.dictionary(fc.constantFrom(...keys), junk, { maxKeys: keys.length }),
        })
        .map(
          ({ key, value, others }): Case => ({
            family: `poisoned ${key}`,
            form: { ...form, ...others },
            poisoned: [key, value],
          }),
        ),
      // A form's entries sent as a plain object, as a client that skipped encodeReply would.
      fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 8, maxLength: 42 }).map(
        (id): Case => ({
          family: "form entries as an object",
          form: {
            [`$ACTION_ID_${id}`]: "",
            $ACTION_REF_1: "",
            ...Object.fromEntries(stringified.map(([k, v]) => [`1_${k}`, v])),
          },
        }),
      ),
      fc
        .record({
          key: fc.constantFrom(...keys),
          huge: hugeString,
          extra: fc.array(
            fc.tuple(formName, fc.oneof(nasty(20), fc.constant({ file: "junk.bin" }))),
            { maxLength: 3 },
          ),
        })
        .map(
          ({ key, huge, extra }): Case => ({
            family: `multipart with a huge ${key}`,
            multipart: [...stringified.filter(([k]) => k !== key), ...extra],
            huge: [key, huge],
          }),
        ),
    );
  }
  return fc.oneof(...families);
}

/** Well-formed calls whose text fields carry what text handling gets wrong. */
function hostile(form: Record<string, unknown>) {
  const texts = Object.entries(form)
    .filter(([, v]) => typeof v === "string")
    .map(([k]) => k);
  if (texts.length === 0) return null;
  const text = fc.oneof(
    fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfff", "\u202eevil", "👩‍👩‍👧", "\ufeff "),
    nasty(20, 1),
  );
  const arbitrary = fc
    .subarray(texts, { minLength: 1 })
    .chain((chosen) =>
      fc.tuple(...chosen.map(() => text)).map((values) => chosen.map((k, i) => [k, values[i]])),
    )
    .map((pairs): Record<string, string> => Object.fromEntries(pairs));
  // Each text field once with a NUL, whatever the random runs pick.
  const examples = texts.map((k): [Record<string, string>] => [{ [k]: "a\u0000b" }]);
  return { arbitrary, examples };
}

/** Multipart field names as a browser writes them: no control characters or quotes. */
const formName = junkKey.map(
  (k) => [...k].filter((ch) => (ch.codePointAt(0) ?? 0) >= 0x20 && ch !== '"').join("") || "x",
);

/** Short for a failure message: long strings and deep values cut. */
function shown(value: unknown): string {
  try {
    const text = JSON.stringify(value, (_, v) =>
      typeof v === "string" && v.length > 80 ? `<${v.length} chars: ${v.slice(0, 20)}…>` : v,
    );
    return (text ?? "undefined").slice(0, 600);
  } catch {
    return "<too deep to print>";
  }
}

type Target = {
  action: ScannedAction;
  row: MatrixRow;
  endpoint: ActionEndpoint;
  pagePath: string;
  refused: (outcome: string) => boolean;
};

let credentials: Credentials | undefined;

test.beforeAll(async () => {
  const admin = DEMO_USERS.find((u) => u.role === "admin");
  if (!admin) throw new Error("no demo admin");
  credentials = { cookie: await signInCookie(admin.email, DEMO_PASSWORD) };
});

function signedIn(): Credentials {
  if (!credentials) throw new Error("the admin did not sign in");
  return credentials;
}

async function targetOf(action: ScannedAction, db: pg.Pool): Promise<Target> {
  const row = MATRIX.find((r) => r.target === action.target && r.call.kind === "action");
  if (!row)
    throw new Error(
      `${action.target} has no row in e2e/authz/matrix.ts to take valid arguments from`,
    );
  const endpoint = readActionEndpoints().get(`${action.file}#${action.exportName}`);
  if (!endpoint)
    throw new Error(`${action.target} is not in the build's server-reference manifest: rebuild`);
  const isPublic = "public" in row;
  const publicRefusal = PUBLIC_REFUSAL[action.target];
  if (isPublic && !publicRefusal) {
    throw new Error(
      `${action.target} is public: say in PUBLIC_REFUSAL what refusing junk looks like`,
    );
  }
  return {
    action,
    row,
    endpoint,
    pagePath: await concretePath(endpoint.route, db),
    refused: publicRefusal ?? ((o) => /^4\d\d(:|$)/.test(o)),
  };
}

/** Valid arguments on fresh fixtures, and which of them is the form object. */
async function validArgs(row: MatrixRow, db: pg.Pool): Promise<{ args: unknown[]; at: number }> {
  if (row.call.kind !== "action") throw new Error(`${row.target} is not an action row`);
  const args = await row.call.args(matrixContext(db));
  return { args, at: args.findLastIndex(isForm) };
}

async function send(t: Target, base: { args: unknown[]; at: number }, c: Case): Promise<Observed> {
  if ("multipart" in c) {
    const fields: FormField[] = c.multipart.map(([k, v]) => [
      k,
      typeof v === "string" ? v : new Blob([new Uint8Array([0, 255, 1])]),
    ]);
    if (c.huge) fields.push([c.huge[0], String(materialize(c.huge[1]))]);
    return callActionWithForm(t.endpoint, t.pagePath, Math.max(base.at, 0), fields, signedIn());
  }
  if ("args" in c) return callAction(t.endpoint, t.pagePath, c.args, signedIn());
  const form = c.poisoned ? { ...c.form, [c.poisoned[0]]: materialize(c.poisoned[1]) } : c.form;
  const args = [...base.args];
  args[Math.max(base.at, 0)] = form;
  return callAction(t.endpoint, t.pagePath, args, signedIn());
}

/** One call: never a server failure; a refusal (required when `mustRefuse`) writes nothing. */
async function exercise(
  t: Target,
  db: pg.Pool,
  base: { args: unknown[]; at: number },
  c: Case,
  mustRefuse: boolean,
): Promise<string> {
  // The bulk runner's background work belongs to the call that started it, not to this one.
  await backgroundSettled(db);
  const before = await snapshot(db);
  const observed = await send(t, base, c);
  await backgroundSettled(db);
  const outcome = String(observed.outcome);
  const changed = changedTables(before, await snapshot(db));
  const say = (what: string) =>
    `${t.action.target} [${c.family}] ${what}\n  sent: ${shown(c)}\n  outcome: ${outcome}\n  detail: ${observed.detail.slice(0, 300)}${
      changed.length ? `\n  changed: ${changed.join("; ")}` : ""
    }`;
  const refused = t.refused(outcome);
  if (/^HTTP 5|threw/.test(outcome)) throw new Error(say("failed on the server"));
  if (mustRefuse && !refused) throw new Error(say("was not refused"));
  if (refused && changed.length) throw new Error(say("was refused but wrote"));
  if (!refused && outcome !== "ok" && !outcome.startsWith("redirect:")) {
    throw new Error(say("answered something that is neither a result nor a refusal"));
  }
  return outcome;
}

test("every server action is fuzzed, or skipped for a stated reason", () => {
  const names = scanSource().actions.map((a) => a.target);
  expect(Object.keys(SKIPPED).filter((s) => !names.includes(s))).toEqual([]);
  expect(actions.length).toBeGreaterThan(0);
});

for (const action of actions) {
  test(`${action.target}: malformed arguments are refused with a 4xx and write nothing`, async ({
    db,
  }) => {
    test.setTimeout(120_000);
    const started = Date.now();
    const t = await targetOf(action, db);
    const base = await validArgs(t.row, db);
    const form = base.at >= 0 ? (base.args[base.at] as Record<string, unknown>) : undefined;
    await fc.assert(
      fc.asyncProperty(malformed(form), async (c) => {
        await exercise(t, db, base, c, true);
      }),
      { numRuns: 12 },
    );
    // The untouched arguments still do what the matrix says, on the same fixture: only the
    // corruptions were refused.
    const valid = await callAction(t.endpoint, t.pagePath, base.args, signedIn());
    expect(valid.outcome, valid.detail).toBe(expectedOutcome(t.row, "admin"));
    console.log(`${action.target} malformed: ${Date.now() - started} ms`);
  });

  test(`${action.target}: hostile text in well-formed arguments never fails on the server`, async ({
    db,
  }) => {
    test.setTimeout(120_000);
    const started = Date.now();
    const t = await targetOf(action, db);
    const shape = await validArgs(t.row, db);
    const form = shape.at >= 0 ? (shape.args[shape.at] as Record<string, unknown>) : undefined;
    const texts = form ? hostile(form) : null;
    test.skip(!texts, `${action.target} takes no text field`);
    if (!texts) return;
    await fc.assert(
      fc.asyncProperty(texts.arbitrary, async (values) => {
        // Fresh fixtures each run: a well-formed call may legitimately act on them.
        const base = await validArgs(t.row, db);
        const fresh = base.args[base.at] as Record<string, unknown>;
        await exercise(
          t,
          db,
          base,
          { family: "hostile text", form: { ...fresh, ...values } },
          false,
        );
      }),
      { numRuns: 5, examples: texts.examples },
    );
    // And the action still works (for signIn, a success also clears the failed attempts).
    const valid = await validArgs(t.row, db);
    const after = await callAction(t.endpoint, t.pagePath, valid.args, signedIn());
    expect(after.outcome, after.detail).toBe(expectedOutcome(t.row, "admin"));
    console.log(`${action.target} hostile: ${Date.now() - started} ms`);
  });
}
