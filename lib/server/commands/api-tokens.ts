// API tokens for machines: created by admins, shown once, stored hashed, scoped, revocable.
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { z } from "zod";
import { withTransaction } from "../../../db/client";
import { type Principal, SCOPES } from "../../domain/access";
import { generateToken } from "../../domain/api-token";
import { type CommandResult, conflict, refuseWithout } from "../../domain/command-result";
import { describeIssues } from "../../domain/zod-issues";
import { appendLedger, SYSTEM_STREAM } from "../ledger/append-ledger";

export const newTokenSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "enter a name")
    .max(80, "must be at most 80 characters")
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, "letters, digits, spaces, . _ - only"),
  scopes: z
    .array(z.enum(SCOPES, { message: `each scope must be one of ${SCOPES.join(", ")}` }))
    .min(1, "choose at least one scope")
    .transform((s) => [...new Set(s)].sort()),
});
export type NewToken = z.input<typeof newTokenSchema>;

export type CreatedToken = {
  id: string;
  name: string;
  scopes: string[];
  prefix: string;
  token: string;
};

export async function createApiToken(
  pool: pg.Pool,
  principal: Principal,
  input: NewToken,
): Promise<CommandResult<CreatedToken>> {
  const refused = refuseWithout(principal, "tokens:manage", "create API tokens");
  if (refused) return refused;
  const parsed = newTokenSchema.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      code: "invalid",
      message: describeIssues(parsed.error),
    };
  }
  const { name, scopes } = parsed.data;
  const { token, hash, prefix } = generateToken();
  return withTransaction(pool, async (client) => {
    const id = randomUUID();
    const inserted = await client.query(
      `insert into api_tokens (id, name, hash, prefix, scopes, created_by) values ($1, $2, $3, $4, $5, $6)
       on conflict do nothing returning id`,
      [id, name, hash, prefix, scopes, principal.actor],
    );
    if (inserted.rowCount === 0) {
      return {
        ok: false as const,
        code: "conflict" as const,
        message: `an active token named "${name}" already exists`,
      };
    }
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "token.created",
      actor: principal.actor,
      data: { tokenId: id, name, prefix, scopes },
    });
    return { ok: true as const, value: { id, name, scopes, prefix, token } };
  });
}

export async function revokeApiToken(
  pool: pg.Pool,
  principal: Principal,
  input: { tokenId: string },
): Promise<CommandResult<{ id: string; revoked: true }>> {
  const refused = refuseWithout(principal, "tokens:manage", "revoke API tokens");
  if (refused) return refused;
  const { tokenId } = input;
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{
      id: string;
      name: string;
      prefix: string;
      revoked_at: Date | null;
    }>("select id, name, prefix, revoked_at from api_tokens where id = $1 for update", [tokenId]);
    const row = rows[0];
    if (!row)
      return { ok: false as const, code: "not_found" as const, message: `no token ${tokenId}` };
    if (row.revoked_at) return { ok: true as const, value: { id: row.id, revoked: true as const } };
    const revoked = await client.query(
      "update api_tokens set revoked_at = now(), revoked_by = $2 where id = $1 and revoked_at is null",
      [row.id, principal.actor],
    );
    if (revoked.rowCount !== 1) return conflict(`token ${row.id} changed meanwhile; try again`);
    await appendLedger(client, SYSTEM_STREAM, {
      kind: "token.revoked",
      actor: principal.actor,
      data: { tokenId: row.id, name: row.name, prefix: row.prefix },
    });
    return { ok: true as const, value: { id: row.id, revoked: true as const } };
  });
}
