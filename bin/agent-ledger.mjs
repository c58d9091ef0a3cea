#!/usr/bin/env node
// Entry point for the agent-ledger command. Installed from the package it runs the built CLI
// (dist/cli.js) with plain node; in a checkout of the sources it registers tsx and runs them.
import { existsSync } from "node:fs";

const source = new URL("../scripts/cli/main.ts", import.meta.url);
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  await import(source.href);
} else {
  await import("../dist/cli.js");
}
