// Every server action and route handler × every principal against the built app, over HTTP, as
// the table in matrix.ts says. A refused call must leave every table as it was.
import type pg from "pg";
import { hashToken, looksLikeToken } from "../../lib/domain/api-token";
import { expect, test } from "../fixtures";
import { callAction, callRoute, concretePath, type Observed, readActionEndpoints } from "./calls";
import {
  expectedOutcome,
  MATRIX,
  type MatrixRow,
  mayWrite,
  PRINCIPALS,
  type Principal,
  rowId,
  TOKEN_SCOPES,
} from "./matrix";
import { matrixContext } from "./matrix-fixtures";
import { type Principals, setUpPrincipals } from "./principals";
import { backgroundSettled, changedTables, snapshot } from "./snapshot";
import { scanSource } from "./source-scan";

const scan = scanSource();

test("every server action and route handler has a row, and every row names one", () => {
  const sources = new Map<string, { file: string; scope?: string; specName?: string }>([
    ...scan.actions.map((a) => [a.target, a] as const),
    ...scan.routes.map((r) => [r.target, r] as const),
  ]);
  const problems = [...scan.problems];
  for (const [target, source] of sources) {
    if (!MATRIX.some((row) => row.target === target)) {
      problems.push(
        `no row for ${target} (${source.file}): add one to e2e/authz/matrix.ts with a valid input and its scope`,
      );
    }
  }
  for (const row of MATRIX) {
    const source = sources.get(row.target);
    if (!source) {
      problems.push(`the row ${rowId(row)} names something the source no longer exports`);
      continue;
    }
    const tableScope = "scope" in row ? row.scope : "public";
    // The source's own declaration (defineAction / guardRoute) must say what the table says.
    if (source.scope !== undefined && source.scope !== tableScope) {
      problems.push(
        `${row.target}: the table says ${tableScope}, ${source.file} requires ${source.scope}`,
      );
    }
    if (source.scope === undefined && tableScope !== "public") {
      problems.push(
        `${row.target}: the table says ${tableScope}, but ${source.file} does not declare it through defineAction or guardRoute`,
      );
    }
    if (source.specName !== undefined && `action:${source.specName}` !== row.target) {
      problems.push(
        `${source.file}: defineAction({ name: "${source.specName}" }) is exported as ${row.target.slice(7)}`,
      );
    }
    if (row.call.kind === "action" && !row.target.startsWith("action:")) {
      problems.push(`${rowId(row)} calls an action but names a route handler`);
    }
    if (row.call.kind === "route" && row.target.startsWith("action:")) {
      problems.push(`${rowId(row)} calls a route but names an action`);
    }
  }
  expect(problems).toEqual([]);
});

let principals: Principals | undefined;

test.beforeAll(async ({ db }) => {
  principals = await setUpPrincipals(db);
});

function ready(): Principals {
  if (!principals) throw new Error("the principals were not set up");
  return principals;
}

test("the principals are what they claim: a disabled, sessionless user and live tokens", async ({
  db,
}) => {
  const p = ready();
  const { rows } = await db.query<{ disabled: boolean; sessions: number }>(
    `select disabled, (select count(*)::int from sessions s where s.user_id = u.id) as sessions
     from users u where id = $1`,
    [p.disabledUserId],
  );
  expect(rows).toEqual([{ disabled: true, sessions: 0 }]);
  for (const [principal, scopes] of Object.entries(TOKEN_SCOPES)) {
    const bearer = p.credentials(principal as Principal).authorization ?? "";
    const token = bearer.replace(/^Bearer /, "");
    expect(looksLikeToken(token), principal).toBe(true);
    const live = await db.query<{ scopes: string[] }>(
      "select scopes from api_tokens where hash = $1 and revoked_at is null",
      [hashToken(token)],
    );
    expect(
      live.rows.map((r) => [...r.scopes].sort()),
      principal,
    ).toEqual([[...scopes].sort()]);
  }
});

test("the write check sees an update that changes no row count", async ({ db }) => {
  const token = await matrixContext(db).freshToken(["metrics:read"]);
  const before = await snapshot(db);
  await db.query("update api_tokens set revoked_at = now(), revoked_by = $2 where id = $1", [
    token.id,
    "system:e2e-authz",
  ]);
  const changed = changedTables(before, await snapshot(db));
  expect(changed).toHaveLength(1);
  expect(changed[0]).toMatch(/^api_tokens: (\d+) rows, \w+ → \1 rows, \w+$/);
});

async function call(
  row: MatrixRow,
  principal: Principal,
  db: pg.Pool,
): Promise<{ observed: Observed; changed: string[] }> {
  const p = ready();
  const ctx = matrixContext(db);
  // A fresh session first: signing in writes rows, and the "before" snapshot comes after it.
  const credentials = row.endsSession ? await p.fresh(principal) : p.credentials(principal);
  let run: () => Promise<Observed>;
  if (row.call.kind === "action") {
    const action = scan.actions.find((a) => a.target === row.target);
    if (!action) throw new Error(`no server action ${row.target} in the source`);
    const endpoint = readActionEndpoints().get(`${action.file}#${action.exportName}`);
    if (!endpoint) {
      throw new Error(
        `${row.target} (${action.file}) is not in .next/server/server-reference-manifest.json: rebuild, or no page uses it yet`,
      );
    }
    const pagePath = await concretePath(endpoint.route, db);
    const args = await row.call.args(ctx);
    run = () => callAction(endpoint, pagePath, args, credentials);
  } else {
    const method = row.target.split(" ")[0] ?? "GET";
    const target = typeof row.call.path === "function" ? await row.call.path(ctx) : row.call.path;
    const path = typeof target === "string" ? target : target.path;
    const body = typeof target === "string" ? row.call.body?.(ctx) : target.body;
    run = () => callRoute(method, path, body, credentials);
  }
  const before = mayWrite(row, principal) ? undefined : await snapshot(db);
  const observed = await run();
  await backgroundSettled(db);
  const changed = before ? changedTables(before, await snapshot(db)) : [];
  return { observed, changed };
}

// One test per row and a step per principal: every principal is tried even when one fails.
for (const row of MATRIX) {
  test(rowId(row), async ({ db }) => {
    test.setTimeout(90_000);
    for (const principal of PRINCIPALS) {
      const expected = expectedOutcome(row, principal);
      const writes = mayWrite(row, principal) ? "" : ", writes nothing";
      await test.step(`as ${principal} → ${expected}${writes}`, async () => {
        const { observed, changed } = await call(row, principal, db);
        expect.soft(observed.outcome, `as ${principal}: ${observed.detail}`).toBe(expected);
        expect
          .soft(changed, `as ${principal}: tables changed by a call that may not write`)
          .toEqual([]);
      });
    }
  });
}
