import { screenRoute } from "../../../../lib/api/screen-route";
import { getDb } from "../../../../lib/server/db";
import { readDeadLettersScreen } from "../../../../lib/server/queries/dead-letters-screen";
import { deadLetterSearchSchema } from "../../../../lib/server/review/dead-letter-filter";

export const dynamic = "force-dynamic";

export const GET = screenRoute({
  scope: "tasks:read",
  search: deadLetterSearchSchema,
  read: (viewer, search) => readDeadLettersScreen(getDb(), viewer, search),
});
