#!/usr/bin/env node
// Entry point for the agent-ledger command: registers tsx so the TypeScript sources run as-is.
import { register } from "tsx/esm/api";

register();
await import("../scripts/cli/main.ts");
