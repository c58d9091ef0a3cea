// The demo's agents module, as `npm start`, `npm run worker` and the chaos fleet hand it to the
// worker (`--agents`): the runtime itself names no agent.
import path from "node:path";
import { PROJECT_ROOT } from "../../db/open";

export const DEMO_AGENTS_MODULE = path.join(PROJECT_ROOT, "worker", "agents", "index.ts");
