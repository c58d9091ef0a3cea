// `agent-ledger users` and `agent-ledger tokens` as scripts see them: real processes against a
// real database, judged by exit code, output and the rows they leave.
import { spawn, spawnSync } from "node:child_process";
import { verifyPassword } from "better-auth/crypto";
import { describe, expect, it } from "vitest";
import { setUpTestDatabase } from "../../db/testing/database";
import { hashToken } from "../../lib/domain/api-token";
import { ACTOR, BIN, cliOn } from "./testing";

const t = await setUpTestDatabase("cli-admin");
const cli = cliOn(t);
const PASSWORD = "a long enough password";

async function lastSystemEntry() {
  const { rows } = await t.pool.query<{
    kind: string;
    actor: string;
    data: Record<string, unknown>;
  }>(
    "select kind, actor, data from ledger_entries where stream = 'system' order by seq desc limit 1",
  );
  return rows[0];
}

async function passwordHashOf(email: string): Promise<string> {
  const { rows } = await t.pool.query<{ password: string }>(
    "select a.password from accounts a join users u on u.id = a.user_id where u.email = $1",
    [email],
  );
  return rows[0]?.password ?? "";
}

// Every spawn starts tsx and the CLI afresh (seconds each on a busy machine).
const SLOW = { timeout: 180_000 };

describe("--help", SLOW, () => {
  it("lists users and tokens, and prints each subcommand's options", () => {
    const top = cli(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^\s+users\s+/m);
    expect(top.stdout).toMatch(/^\s+tokens\s+/m);
    const subcommands = {
      users: ["add", "list", "set-role", "disable", "enable"],
      tokens: ["create", "list", "revoke"],
    };
    for (const args of [
      ["users", "--help"],
      ["tokens", "--help"],
    ]) {
      const r = cli(args);
      const name = args[0] as keyof typeof subcommands;
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^agent-ledger ${name} <subcommand>`));
      for (const sub of subcommands[name]) {
        expect(r.stdout).toMatch(new RegExp(`^  ${sub}( |$)`, "m"));
      }
      if (name === "users") expect(r.stdout).toContain("Roles: reviewer, ops, admin");
      else expect(r.stdout).toContain("tasks:enqueue");
    }
    // Each subcommand has its own page: its options, then the group's notes.
    const add = cli(["users", "add", "-h"]);
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/^agent-ledger users add --email E --role R .*--password-stdin/);
    expect(add.stdout).not.toContain("set-role");
    const create = cli(["tokens", "create", "--help"]);
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/^agent-ledger tokens create --name N --scopes a,b/);
    expect(create.stdout).toContain('{"token": …, "id": …, "name": …, "scopes": […]}');
    // A mistake in a subcommand's options shows that subcommand's page.
    const bad = cli(["tokens", "revoke"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /give exactly one of --id or --name\n\nagent-ledger tokens revoke --id/,
    );
  });

  it("exits 2 without a subcommand, with an unknown one, or with bad options", () => {
    const results = [
      ["users"],
      ["users", "remove"],
      ["tokens", "toString"],
      ["tokens", "list", "--frob"],
    ].map((args) => ({ args, ...cli(args) }));
    for (const r of results) {
      expect(r.code, r.args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^agent-ledger (users|tokens): /);
    }
    expect(results[0]?.stderr).toContain("name a subcommand: add, list, set-role, disable, enable");
    expect(results[1]?.stderr).toContain('unknown subcommand "remove"');
    expect(results[3]?.stderr).toContain("Unknown option '--frob'");
  });

  it("exits 2 when the database cannot be reached", () => {
    const r = cli(["users", "list"], {
      env: { DATABASE_URL: "postgres://x:y@127.0.0.1:1/none" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/ECONNREFUSED|connect/);
  });
});

describe("agent-ledger users", SLOW, () => {
  it("adds a person with a password piped on stdin, recorded with the cli actor", async () => {
    const r = cli(
      [
        "users",
        "add",
        "--email",
        "Root@Example.com",
        "--role",
        "admin",
        "--name",
        "Root",
        "--json",
      ],
      { input: `${PASSWORD}\n` },
    );
    expect(r.code, r.stderr).toBe(0);
    const added = JSON.parse(r.stdout);
    expect(added).toMatchObject({ email: "root@example.com", role: "admin", disabled: false });
    const { rows } = await t.pool.query("select id, name, role from users where email = $1", [
      "root@example.com",
    ]);
    expect(rows).toEqual([{ id: added.id, name: "Root", role: "admin" }]);
    // The one trailing newline is not part of the password.
    expect(
      await verifyPassword({ hash: await passwordHashOf("root@example.com"), password: PASSWORD }),
    ).toBe(true);
    expect(await lastSystemEntry()).toMatchObject({
      kind: "user.created",
      actor: ACTOR,
      data: { email: "root@example.com", role: "admin" },
    });
  });

  it("reads the password from stdin with --password-stdin and prints a plain line", async () => {
    const r = cli(
      ["users", "add", "--email", "rev@example.com", "--role", "reviewer", "--password-stdin"],
      { input: "another good password" },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Added rev@example\.com as reviewer \(id [^)]+\)\.\n$/);
    expect(
      await verifyPassword({
        hash: await passwordHashOf("rev@example.com"),
        password: "another good password",
      }),
    ).toBe(true);
  });

  it("refuses bad input with 2 and an existing email with 1, adding nobody", async () => {
    const short = cli(["users", "add", "--email", "s@example.com", "--role", "ops"], {
      input: "short\n",
    });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("password: must be at least 12 characters");
    const noEmail = cli(["users", "add", "--role", "ops"], { input: PASSWORD });
    expect(noEmail.code).toBe(2);
    expect(noEmail.stderr).toContain("--email: is required");
    const badEmail = cli(["users", "add", "--email", "nope", "--role", "ops"], { input: PASSWORD });
    expect(badEmail.code).toBe(2);
    expect(badEmail.stderr).toContain("--email: must be an email address");
    const badRole = cli(["users", "add", "--email", "r@example.com", "--role", "root"], {
      input: PASSWORD,
    });
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toContain("--role: must be one of reviewer, ops, admin");
    const { rows } = await t.pool.query(
      "select 1 from users where email in ('s@example.com', 'r@example.com')",
    );
    expect(rows).toHaveLength(0);

    const dup = cli(["users", "add", "--email", "REV@example.com", "--role", "admin"], {
      input: PASSWORD,
    });
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("a user with email rev@example.com already exists");
    const rev = await t.pool.query("select role from users where email = 'rev@example.com'");
    expect(rev.rows).toEqual([{ role: "reviewer" }]);
  });

  it("lists people as JSON and as a table", () => {
    const json = cli(["users", "list", "--json"]);
    expect(json.code).toBe(0);
    const users = JSON.parse(json.stdout) as { email: string; role: string; disabled: boolean }[];
    expect(users.map((u) => [u.email, u.role, u.disabled])).toEqual([
      ["root@example.com", "admin", false],
      ["rev@example.com", "reviewer", false],
    ]);
    const text = cli(["users", "list"]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^EMAIL\s+ROLE\s+STATUS\s+CREATED\s+NAME$/);
    expect(lines[1]).toMatch(
      /^root@example\.com\s+admin\s+active\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+Root$/,
    );
  });

  it("changes roles, and will not demote the last active admin", async () => {
    const r = cli(["users", "set-role", "--email", "rev@example.com", "--role", "ops"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("rev@example.com is now ops.\n");
    expect(
      (await t.pool.query("select role from users where email = 'rev@example.com'")).rows,
    ).toEqual([{ role: "ops" }]);
    expect(await lastSystemEntry()).toMatchObject({ kind: "user.role_changed", actor: ACTOR });

    const last = cli(["users", "set-role", "--email", "root@example.com", "--role", "ops"]);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain("this is the last active admin");
    const unknown = cli(["users", "set-role", "--email", "ghost@example.com", "--role", "ops"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("no user with email ghost@example.com");
    expect(cli(["users", "set-role", "--email", "rev@example.com"]).code).toBe(2);
  });

  it("disables (ending sessions) and enables, but never the last active admin", async () => {
    const { rows } = await t.pool.query<{ id: string }>(
      "select id from users where email = 'rev@example.com'",
    );
    const id = rows[0]?.id;
    await t.pool.query(
      "insert into sessions (id, token, user_id, expires_at) values ('cli-s1', 'cli-t1', $1, now() + interval '1 hour')",
      [id],
    );
    const off = cli(["users", "disable", "--email", "rev@example.com", "--json"]);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ email: "rev@example.com", disabled: true });
    expect(
      (await t.pool.query("select 1 from sessions where user_id = $1", [id])).rows,
    ).toHaveLength(0);
    expect(await lastSystemEntry()).toMatchObject({ kind: "user.disabled", actor: ACTOR });

    const on = cli(["users", "enable", "--email", "rev@example.com"]);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toBe("Enabled rev@example.com.\n");
    expect(await lastSystemEntry()).toMatchObject({ kind: "user.enabled", actor: ACTOR });

    const last = cli(["users", "disable", "--email", "root@example.com"]);
    expect(last.code).toBe(1);
    expect(last.stderr).toContain("this is the last active admin");
    expect(cli(["users", "enable", "--email", "ghost@example.com"]).code).toBe(1);
  });

  // util-linux script(1) provides the pseudo-terminal; Debian has it in an essential package.
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.skipIf(!hasScript)(
    "asks for the password twice on a terminal without echoing it",
    async () => {
      const secret = "typed at a terminal";
      const command = [
        process.execPath,
        BIN,
        "users",
        "add",
        "--email",
        "tty@example.com",
        "--role",
        "ops",
      ]
        .map((a) => `'${a.replaceAll("'", "'\\''")}'`)
        .join(" ");
      // Type only once it has asked, as a person would.
      const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], {
        env: { ...process.env, DATABASE_URL: t.appUrl, DATABASE_OWNER_URL: t.ownerUrl },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let output = "";
      let typed = 0;
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
        const prompts = (
          output.match(/Password for tty@example\.com: |Same password again: /g) ?? []
        ).length;
        while (typed < prompts) {
          typed += 1;
          child.stdin.write(`${secret}\r`);
        }
      });
      const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      clearTimeout(killer);
      expect(code, output).toBe(0);
      expect(typed).toBe(2);
      expect(output).toContain("Added tty@example.com as ops");
      expect(output).not.toContain(secret);
      expect(
        await verifyPassword({ hash: await passwordHashOf("tty@example.com"), password: secret }),
      ).toBe(true);
    },
  );
});

describe("agent-ledger tokens", SLOW, () => {
  it("creates a token, printing it once as JSON, storing only its hash", async () => {
    const r = cli([
      "tokens",
      "create",
      "--name",
      "deploy bot",
      "--scopes",
      "tasks:read, tasks:enqueue",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(["token", "id", "name", "scopes"]);
    expect(out).toMatchObject({ name: "deploy bot", scopes: ["tasks:enqueue", "tasks:read"] });
    expect(out.token).toMatch(/^alt_[A-Za-z0-9_-]{43}$/);
    const { rows } = await t.pool.query<{ hash: string; created_by: string }>(
      "select hash, created_by from api_tokens where id = $1",
      [out.id],
    );
    expect(rows).toEqual([{ hash: hashToken(out.token), created_by: ACTOR }]);
    expect(await lastSystemEntry()).toMatchObject({ kind: "token.created", actor: ACTOR });
  });

  it("prints only the token on stdout in plain mode, the warning on stderr", async () => {
    const r = cli(["tokens", "create", "--name", "plain", "--scopes", "ledger:read"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^alt_[A-Za-z0-9_-]{43}\n$/);
    expect(r.stderr).toContain("it is not shown again");
    const { rows } = await t.pool.query("select 1 from api_tokens where hash = $1", [
      hashToken(r.stdout.trim()),
    ]);
    expect(rows).toHaveLength(1);
  });

  it("refuses bad scopes and missing options with 2 and a taken name with 1", () => {
    const bad = cli(["tokens", "create", "--name", "x", "--scopes", "tasks:read,root"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("each scope must be one of");
    expect(cli(["tokens", "create", "--name", "x"]).code).toBe(2);
    expect(cli(["tokens", "create", "--scopes", "tasks:read"]).code).toBe(2);
    expect(cli(["tokens", "create", "--name", "x", "--scopes", ""]).stderr).toContain(
      "choose at least one scope",
    );
    const taken = cli(["tokens", "create", "--name", "plain", "--scopes", "tasks:read"]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('an active token named "plain" already exists');
  });

  it("lists tokens without any secret or hash", async () => {
    const json = cli(["tokens", "list", "--json"]);
    expect(json.code).toBe(0);
    const tokens = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(tokens.map((x) => x.name).sort()).toEqual(["deploy bot", "plain"]);
    for (const token of tokens) {
      expect(Object.keys(token).sort()).toEqual([
        "createdAt",
        "createdBy",
        "id",
        "lastUsedAt",
        "name",
        "prefix",
        "revokedAt",
        "revokedBy",
        "scopes",
      ]);
    }
    const hashes = await t.pool.query<{ hash: string }>("select hash from api_tokens");
    for (const { hash } of hashes.rows) expect(json.stdout).not.toContain(hash);
    const text = cli(["tokens", "list"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^ID\s+NAME\s+PREFIX\s+STATUS\s+CREATED\s+BY\s+LAST USED\s+SCOPES$/m,
    );
    expect(text.stdout).toMatch(/deploy bot\s+alt_\S{8}\s+active\s/);
  });

  it("revokes by name or id, idempotently; 1 for an unknown token, 2 for bad options", async () => {
    const byName = cli(["tokens", "revoke", "--name", "plain"]);
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.stdout).toMatch(/^Token \S+ is revoked\.\n$/);
    const { rows } = await t.pool.query<{ id: string; revoked_by: string }>(
      "select id, revoked_by from api_tokens where name = 'plain'",
    );
    expect(rows[0]?.revoked_by).toBe(ACTOR);
    expect(await lastSystemEntry()).toMatchObject({ kind: "token.revoked", actor: ACTOR });
    const count = async () =>
      (
        await t.pool.query(
          "select count(*)::int as n from ledger_entries where kind = 'token.revoked'",
        )
      ).rows[0]?.n;
    const before = await count();

    const again = cli(["tokens", "revoke", "--name", "plain", "--json"]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ id: rows[0]?.id, revoked: true });
    expect(cli(["tokens", "revoke", "--id", rows[0]?.id ?? ""]).code).toBe(0);
    expect(await count()).toBe(before);

    const list = JSON.parse(cli(["tokens", "list", "--json"]).stdout) as { name: string }[];
    expect(list.at(-1)?.name).toBe("plain"); // revoked ones last

    const ghost = cli(["tokens", "revoke", "--name", "ghost"]);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toContain('no token named "ghost"');
    expect(cli(["tokens", "revoke", "--id", "no-such-id"]).code).toBe(1);
    expect(cli(["tokens", "revoke"]).code).toBe(2);
    expect(cli(["tokens", "revoke", "--id", "a", "--name", "b"]).stderr).toContain(
      "give exactly one of --id or --name",
    );
  });
});
