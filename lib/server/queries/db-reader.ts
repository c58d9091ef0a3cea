// What a read needs from drizzle: the pool-backed database or a transaction inside it, so a
// screen can combine several reads in one snapshot.
import type { Db } from "../../../db/client";

export type DbReader = Pick<Db, "select" | "execute">;
