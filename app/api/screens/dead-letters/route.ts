import { screenRoute } from "../../../../lib/api/screen-route";
import { readDeadLettersScreen } from "../../../../lib/server/queries/dead-letters-screen";
import { deadLetterSearchSchema } from "../../../../lib/server/review/dead-letter-filter";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: deadLetterSearchSchema,
  read: (viewer, search, { db }) => readDeadLettersScreen(db, viewer, search),
});
