// The users screen and `agent-ledger users list`: everyone who may sign in, with role and
// status. Password hashes and sessions stay out.
import { asc } from "drizzle-orm";
import { users } from "../../../db/schema";
import type { Role } from "../../domain/access";
import { requireScope, type Viewer } from "../../domain/access";
import type { DbReader } from "./db-reader";

export type UserDto = {
  id: string;
  name: string;
  email: string;
  role: Role;
  disabled: boolean;
  /** ISO 8601, UTC. */
  createdAt: string;
};

/** For a signed-in admin (or an admin token). */
export async function listUsers(db: DbReader, viewer: Viewer | null): Promise<UserDto[]> {
  requireScope(viewer, "users:manage");
  return readUsers(db);
}

/** Unchecked: for the CLI, whose operator already holds the database credentials. */
export async function readUsers(db: DbReader): Promise<UserDto[]> {
  const rows = await db
    .select({
      id: users.id,
      name: users.name,
      email: users.email,
      role: users.role,
      disabled: users.disabled,
      createdAt: users.createdAt,
    })
    .from(users)
    .orderBy(asc(users.createdAt), asc(users.email));
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}
