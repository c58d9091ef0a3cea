// What /dead-letters shows and its live route re-reads: the groups (reason → fingerprint) and
// one page of the filtered list.
import type { Viewer } from "../../domain/access";
import type { DeadLetterSearch } from "../review/dead-letter-filter";
import type { DbReader } from "./db-reader";
import { type DeadTaskPageDto, listDeadLetterTasks } from "./list-dead-letter-tasks";
import { type DeadLettersDto, listDeadLetters } from "./list-dead-letters";

export type DeadLettersScreenDto = { groups: DeadLettersDto; list: DeadTaskPageDto };

export async function readDeadLettersScreen(
  db: DbReader,
  viewer: Viewer | null,
  search: DeadLetterSearch,
): Promise<DeadLettersScreenDto> {
  const groups = await listDeadLetters(db, viewer);
  const list = await listDeadLetterTasks(db, viewer, search);
  return { groups, list };
}
