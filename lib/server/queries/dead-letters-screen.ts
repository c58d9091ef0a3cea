// What /dead-letters shows and its live route re-reads: the groups (reason → fingerprint), one
// page of the filtered list and the failing alert destinations, read in one snapshot so every
// count of the same thing on the screen is the same number (a card saying 320 beside a heading
// saying 322 was two reads a task apart).
import type { Db } from "../../../db/client";
import type { Viewer } from "../../domain/access";
import { type DeadLetterSearch, includesSystem } from "../review/dead-letter-filter";
import { type DeadTaskPageDto, listDeadLetterTasks } from "./list-dead-letter-tasks";
import { type DeadLettersDto, listDeadLetters } from "./list-dead-letters";
import { type FailingDestinationsDto, listFailingDestinations } from "./list-failing-destinations";

export type DeadLettersScreenDto = {
  groups: DeadLettersDto;
  list: DeadTaskPageDto;
  /** The product's own undelivered alerts, per destination; in `groups` only when asked for. */
  alerts: FailingDestinationsDto;
  /** The groups and the list count the alert deliveries too (system=include or their agent). */
  includesSystem: boolean;
};

export async function readDeadLettersScreen(
  db: Pick<Db, "transaction">,
  viewer: Viewer | null,
  search: DeadLetterSearch,
): Promise<DeadLettersScreenDto> {
  const withSystem = includesSystem(search);
  return db.transaction(
    async (tx) => {
      const groups = await listDeadLetters(tx, viewer, { includeSystem: withSystem });
      const list = await listDeadLetterTasks(tx, viewer, search);
      const alerts = await listFailingDestinations(tx, viewer);
      return { groups, list, alerts, includesSystem: withSystem };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}
