// The API tokens screen and `agent-ledger tokens list`: what each token may do, who made it,
// when it was last used and whether it is revoked. The hash never leaves the database.
import { asc, desc, sql } from "drizzle-orm";
import { apiTokens } from "../../../db/schema";
import { requireScope, type Viewer } from "../../domain/access";
import type { DbReader } from "./db-reader";

export type ApiTokenDto = {
  id: string;
  name: string;
  /** The token's first characters, enough to tell tokens apart. */
  prefix: string;
  scopes: string[];
  createdBy: string;
  /** ISO 8601, UTC. */
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
};

/** For a signed-in admin (or an admin token). */
export async function listApiTokens(db: DbReader, viewer: Viewer | null): Promise<ApiTokenDto[]> {
  requireScope(viewer, "tokens:manage");
  return readApiTokens(db);
}

/** Unchecked: for the CLI, whose operator already holds the database credentials. Active first. */
export async function readApiTokens(db: DbReader): Promise<ApiTokenDto[]> {
  const rows = await db
    .select({
      id: apiTokens.id,
      name: apiTokens.name,
      prefix: apiTokens.prefix,
      scopes: apiTokens.scopes,
      createdBy: apiTokens.createdBy,
      createdAt: apiTokens.createdAt,
      lastUsedAt: apiTokens.lastUsedAt,
      revokedAt: apiTokens.revokedAt,
      revokedBy: apiTokens.revokedBy,
    })
    .from(apiTokens)
    .orderBy(
      sql`${apiTokens.revokedAt} is not null`,
      desc(apiTokens.createdAt),
      asc(apiTokens.name),
    );
  return rows.map((r) => ({
    ...r,
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    revokedAt: r.revokedAt?.toISOString() ?? null,
  }));
}
