// agent-ledger: the command line's entry point (bin/agent-ledger.mjs imports it). The commands
// and their exit codes are in program.ts.
import { main } from "./program";

process.exitCode = await main(process.argv.slice(2));
