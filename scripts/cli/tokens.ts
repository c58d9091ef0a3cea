// agent-ledger tokens: API tokens for machines from a shell. `create` prints the secret once
// (only its hash is stored); every change is a `system` ledger entry by "cli:<os user>".
import { SCOPES } from "../../lib/domain/access";
import { createApiToken, revokeApiToken } from "../../lib/server/commands/api-tokens";
import { readApiTokens } from "../../lib/server/queries/list-api-tokens";
import { cliPrincipal, failure, listSubcommand, shortTime, withAppDatabase } from "./operator";
import {
  commandGroup,
  EXIT,
  helpOption,
  jsonOption,
  parseOptions,
  printJson,
  type Subcommand,
  UsageError,
} from "./shared";

const NOTES = `Scopes: ${SCOPES.join(", ")}.
A request sends the token as "Authorization: Bearer <token>".

Exit codes: 0 ok, 1 refused (name taken, no such token), 2 could not run.`;

type Sub = Subcommand["run"];

const create: Sub = async (argv) => {
  const opts = parseOptions(argv, {
    ...helpOption,
    ...jsonOption,
    name: { type: "string" },
    scopes: { type: "string" },
  });
  if (opts.name === undefined) throw new UsageError("--name is required");
  if (opts.scopes === undefined) throw new UsageError("--scopes is required (comma-separated)");
  const scopes = opts.scopes
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return withAppDatabase("tokens", async (pool) => {
    const result = await createApiToken(pool, cliPrincipal(), {
      name: opts.name ?? "",
      scopes: scopes as (typeof SCOPES)[number][],
    });
    if (!result.ok) return failure("tokens create", result);
    const { token, id, name } = result.value;
    if (opts.json) printJson({ token, id, name, scopes: result.value.scopes });
    else {
      console.log(token);
      console.error(
        `Created token "${name}" (id ${id}) with scopes ${result.value.scopes.join(", ")}.\nStore it now: it is not shown again; only its hash is kept.`,
      );
    }
    return EXIT.ok;
  });
};

/** Created and last used as "2025-06-01 09:00:00", or "never". */
const when = (iso: string | null) => (iso ? shortTime(iso) : "never");

const list = listSubcommand({
  command: "tokens",
  read: readApiTokens,
  none: "No API tokens yet: agent-ledger tokens create …",
  header: ["ID", "NAME", "PREFIX", "STATUS", "CREATED", "BY", "LAST USED", "SCOPES"],
  cells: (t) => [
    t.id,
    t.name,
    t.prefix,
    t.revokedAt ? "revoked" : "active",
    when(t.createdAt),
    t.createdBy,
    when(t.lastUsedAt),
    t.scopes.join(","),
  ],
});

const revoke: Sub = async (argv) => {
  const opts = parseOptions(argv, {
    ...helpOption,
    ...jsonOption,
    id: { type: "string" },
    name: { type: "string" },
  });
  if ((opts.id === undefined) === (opts.name === undefined)) {
    throw new UsageError("give exactly one of --id or --name");
  }
  return withAppDatabase("tokens", async (pool) => {
    let id = opts.id;
    if (opts.name !== undefined) {
      // The active token with that name, else the latest revoked one (revoking again is fine).
      const { rows } = await pool.query<{ id: string }>(
        `select id from api_tokens where name = $1
          order by revoked_at is not null, revoked_at desc limit 1`,
        [opts.name],
      );
      id = rows[0]?.id;
      if (!id) {
        console.error(`agent-ledger tokens revoke: no token named "${opts.name}"`);
        return EXIT.problem;
      }
    }
    const result = await revokeApiToken(pool, cliPrincipal(), { tokenId: id ?? "" });
    if (!result.ok) return failure("tokens revoke", result);
    if (opts.json) printJson(result.value);
    else console.log(`Token ${result.value.id} is revoked.`);
    return EXIT.ok;
  });
};

export const tokensCommand = commandGroup({
  name: "tokens",
  summary: "Create API tokens (shown once), list them, revoke them",
  notes: NOTES,
  subcommands: [
    {
      name: "create",
      synopsis: "--name N --scopes a,b [--json]",
      description: `Creates a token and prints it once: store it now, it cannot be shown again.
Plain output is the token alone on stdout (TOKEN=$(agent-ledger tokens create …));
--json prints {"token": …, "id": …, "name": …, "scopes": […]}.`,
      run: create,
    },
    {
      name: "list",
      synopsis: "[--json]",
      description: "Every token with its prefix, scopes, creator, last use and revocation.",
      run: list,
    },
    {
      name: "revoke",
      synopsis: "--id ID | --name N [--json]",
      description:
        "Revokes a token (by id, or the active token with that name). Revoking twice is fine.",
      run: revoke,
    },
  ],
});
