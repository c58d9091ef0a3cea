// agent-ledger demo: stages dead letters through the real path on request, for a demo or to
// try the triage screens again: an outage of the payments provider, tasks with bad input.
import { demoBadInput } from "./demo-bad-input";
import { demoOutage } from "./demo-outage";
import { commandGroup } from "./shared";

export const demoCommand = commandGroup({
  name: "demo",
  summary: "Stage an outage or bad inputs the worker dead-letters for real (demo data)",
  subcommands: [demoOutage, demoBadInput],
  notes: `Both need a live worker running the agent (npm start runs one). The tasks are the demo's:
their order ids name the run (outage-<run>-…, bad-<run>-…), and a demo.staged entry in the
system stream says who staged what. See docs/demo.md.
Exit codes: 0 every task dead as staged, 1 staged but not every task ended so within the time,
2 could not run (bad options, no live worker, the payments service not answering).`,
});
