// The non-task commands authorize themselves: called directly (no server action, endpoint or
// CLI in front) by a principal without the command's scope, each answers `forbidden` in the one
// wording of a refusal and changes no row — neither its tables nor the ledger. The same call by
// an admin then succeeds, so the refusal is the command's own check, not a broken call.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../../db/testing/database";
import { testTokenViewer, testViewer } from "../../auth/testing";
import {
  missingScope,
  operator,
  type Principal,
  principalOf,
  SCOPES,
  type Scope,
} from "../../domain/access";
import type { CommandResult } from "../../domain/command-result";
import { createApiToken, revokeApiToken } from "./api-tokens";
import { createAlertRule } from "./create-alert-rule";
import { deleteAlertRule } from "./delete-alert-rule";
import { setPolicy } from "./set-policy";
import { updateAlertRule } from "./update-alert-rule";
import { createUser, setUserDisabled, setUserRole, unlockSignIn } from "./users";

const t = await setUpTestDatabase("principal");
const SETUP = operator("test:setup");
const ADMIN = principalOf(testViewer("admin"));
const PASSWORD = "correct horse battery";
const SLACK = "https://hooks.slack.example/services/T1/B2/principal";

type Table =
  | "retry_policies"
  | "users"
  | "accounts"
  | "sessions"
  | "login_lock_events"
  | "api_tokens"
  | "alert_rules"
  | "ledger_entries";

/** Every row of each table, as text (an insert, update or delete anywhere changes it). */
async function snapshot(tables: readonly Table[]) {
  const rows: Record<string, string[]> = {};
  for (const table of [...tables, "ledger_entries"]) {
    const result = await t.pool.query<{ row: string }>(
      `select r::text as row from ${table} r order by 1`,
    );
    rows[table] = result.rows.map((r) => r.row);
  }
  return { ledger: rows.ledger_entries?.length ?? 0, rows };
}

async function newUser(role: "reviewer" | "ops" | "admin" = "reviewer") {
  const email = `${randomUUID()}@example.com`;
  const made = await createUser(t.pool, SETUP, { email, role, password: PASSWORD });
  if (!made.ok) throw new Error(made.message);
  return made.value;
}

async function newRule() {
  const made = await createAlertRule(t.pool, SETUP, {
    name: `rule ${randomUUID()}`,
    kind: "dead_letter",
    destination: "slack",
    url: SLACK,
  });
  if (!made.ok) throw new Error(made.message);
  return made.value;
}

type Run = (principal: Principal) => Promise<CommandResult<unknown>>;

type Case = {
  command: string;
  scope: Scope;
  /** The refusal's "may not …" phrase, as the command words it. */
  what: string;
  tables: Table[];
  /** Stages what the command acts on; returns the one call, made as a given principal. */
  prepare: () => Promise<Run>;
};

const CASES: Case[] = [
  {
    command: "setPolicy",
    scope: "policies:write",
    what: "change retry policies",
    tables: ["retry_policies"],
    prepare: async () => (p) =>
      setPolicy(t.pool, p, {
        scope: "agent:principal-test",
        policy: { maxAttempts: 2 },
        version: null,
      }),
  },
  {
    command: "createUser",
    scope: "users:manage",
    what: "add people",
    tables: ["users", "accounts"],
    prepare: async () => (p) =>
      createUser(t.pool, p, { email: "newcomer@example.com", role: "ops", password: PASSWORD }),
  },
  {
    command: "setUserRole",
    scope: "users:manage",
    what: "change a person's role",
    tables: ["users"],
    prepare: async () => {
      const user = await newUser("reviewer");
      return (p) => setUserRole(t.pool, p, { userId: user.id, role: "ops" });
    },
  },
  {
    command: "setUserDisabled",
    scope: "users:manage",
    what: "disable people",
    tables: ["users", "sessions"],
    prepare: async () => {
      const user = await newUser("ops");
      const session = randomUUID();
      await t.pool.query(
        `insert into sessions (id, token, user_id, expires_at) values ($1, $2, $3, now() + interval '1 hour')`,
        [session, `token-${session}`, user.id],
      );
      return (p) => setUserDisabled(t.pool, p, { userId: user.id, disabled: true });
    },
  },
  {
    command: "unlockSignIn",
    scope: "users:manage",
    what: "lift a sign-in lock",
    tables: ["login_lock_events"],
    prepare: async () => {
      const user = await newUser();
      return (p) => unlockSignIn(t.pool, p, { email: user.email });
    },
  },
  {
    command: "createApiToken",
    scope: "tokens:manage",
    what: "create API tokens",
    tables: ["api_tokens"],
    prepare: async () => (p) =>
      createApiToken(t.pool, p, { name: "principal-new", scopes: ["tasks:read"] }),
  },
  {
    command: "revokeApiToken",
    scope: "tokens:manage",
    what: "revoke API tokens",
    tables: ["api_tokens"],
    prepare: async () => {
      const made = await createApiToken(t.pool, SETUP, {
        name: "principal-revoke",
        scopes: ["tasks:read"],
      });
      if (!made.ok) throw new Error(made.message);
      return (p) => revokeApiToken(t.pool, p, { tokenId: made.value.id });
    },
  },
  {
    command: "createAlertRule",
    scope: "alerts:write",
    what: "add alert rules",
    tables: ["alert_rules"],
    prepare: async () => (p) =>
      createAlertRule(t.pool, p, {
        name: "principal new rule",
        kind: "outcome_unknown",
        destination: "slack",
        url: SLACK,
      }),
  },
  {
    command: "updateAlertRule",
    scope: "alerts:write",
    what: "change alert rules",
    tables: ["alert_rules"],
    prepare: async () => {
      const rule = await newRule();
      return (p) =>
        updateAlertRule(t.pool, p, {
          id: rule.id,
          version: rule.version,
          rule: { name: "renamed", kind: "dead_letter", destination: "slack", enabled: false },
        });
    },
  },
  {
    command: "deleteAlertRule",
    scope: "alerts:write",
    what: "delete alert rules",
    tables: ["alert_rules"],
    prepare: async () => {
      const rule = await newRule();
      return (p) => deleteAlertRule(t.pool, p, { id: rule.id, version: rule.version });
    },
  },
];

/** Without the command's scope: two roles, a token with every other scope, and no scope at all. */
function underPrivileged(scope: Scope): Principal[] {
  return [
    principalOf(testViewer("reviewer")),
    principalOf(testViewer("ops")),
    principalOf(
      testTokenViewer(
        SCOPES.filter((s) => s !== scope),
        "all-but-one",
      ),
    ),
    { actor: "test:nobody", who: "nobody", scopes: new Set() },
  ];
}

describe("a command called by a principal without its scope", () => {
  it.each(CASES)("$command refuses without $scope and writes nothing", async (c) => {
    const run = await c.prepare();
    for (const principal of underPrivileged(c.scope)) {
      const before = await snapshot(c.tables);
      expect(await run(principal), principal.who).toEqual({
        ok: false,
        code: "forbidden",
        message: missingScope(principal.who, c.scope, c.what),
      });
      expect(await snapshot(c.tables), principal.who).toEqual(before);
    }
    // The same call as an admin acts, and records who: the refusals above were the scope.
    const before = await snapshot(c.tables);
    expect(await run(ADMIN)).toMatchObject({ ok: true });
    const after = await snapshot(c.tables);
    expect(after.ledger).toBe(before.ledger + 1);
    const { rows } = await t.pool.query<{ actor: string }>(
      "select actor from ledger_entries where stream = 'system' order by seq desc limit 1",
    );
    expect(rows[0]?.actor).toBe("user:admin@example.com");
  });

  it("words the refusal as every adapter does: who, what, and the scope it needs", async () => {
    const refused = await createUser(t.pool, principalOf(testViewer("reviewer")), {
      email: "reviewer-made@example.com",
      role: "admin",
      password: PASSWORD,
    });
    expect(refused).toEqual({
      ok: false,
      code: "forbidden",
      message: "the reviewer role may not add people (needs users:manage)",
    });
    const token = await revokeApiToken(t.pool, principalOf(testTokenViewer(["tasks:read"], "ci")), {
      tokenId: "no-such-token",
    });
    // Refused before the token is looked up: a caller without the scope learns nothing of it.
    expect(token).toEqual({
      ok: false,
      code: "forbidden",
      message: 'token "ci" may not revoke API tokens (needs tokens:manage)',
    });
  });

  it("refuses before judging the input: bad input from the unauthorized is still forbidden", async () => {
    const before = await snapshot(["retry_policies"]);
    expect(
      await setPolicy(t.pool, principalOf(testViewer("ops")), {
        scope: "not a scope",
        policy: { maxAttempts: -1 },
        version: 7,
      }),
    ).toMatchObject({ ok: false, code: "forbidden" });
    expect(await snapshot(["retry_policies"])).toEqual(before);
  });
});
