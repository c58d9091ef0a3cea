// Creates the two roles and the database on a server where we hold a superuser connection:
// the embedded default and throwaway test clusters. Against your own Postgres you do this once
// by hand (see docs/configuration.md) and hand us DATABASE_URL and DATABASE_OWNER_URL.
import { connectClient } from "./client";

export const OWNER_ROLE = "agent_ledger_owner";
export const APP_ROLE = "agent_ledger_app";

export type Credentials = { ownerPassword: string; appPassword: string };

function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** Ensures both login roles exist with these passwords. Idempotent. */
export async function provisionRoles(superUrl: string, creds: Credentials): Promise<void> {
  const client = await connectClient(superUrl);
  try {
    for (const [role, password] of [
      [OWNER_ROLE, creds.ownerPassword],
      [APP_ROLE, creds.appPassword],
    ] as const) {
      const found = await client.query("select 1 from pg_roles where rolname = $1", [role]);
      const verb = found.rowCount === 0 ? "create" : "alter";
      await client.query(`${verb} role ${role} login password ${quoteLiteral(password)}`);
    }
  } finally {
    await client.end();
  }
}

/** Creates `database` owned by the owner role, optionally from a template. Idempotent without a template. */
export async function createDatabase(
  superUrl: string,
  database: string,
  template?: string,
): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`bad database name ${database}`);
  const client = await connectClient(superUrl);
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (found.rowCount !== 0) return;
    const from = template ? ` template ${template}` : "";
    await client.query(`create database ${database} owner ${OWNER_ROLE}${from}`);
  } finally {
    await client.end();
  }
}

export async function dropDatabase(superUrl: string, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`bad database name ${database}`);
  const client = await connectClient(superUrl);
  try {
    await client.query(`drop database if exists ${database} with (force)`);
  } finally {
    await client.end();
  }
}

export function withCredentials(
  url: string,
  user: string,
  password: string,
  database?: string,
): string {
  const u = new URL(url);
  u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  if (database) u.pathname = `/${database}`;
  return u.toString();
}
