// A module of agents, as `agent-ledger worker --agents <module>` and `npm start` load one: it
// exports `agents` (or a default export): an array of agents, or a factory that receives the
// environment and the worker's pool and returns them (or a promise of them). It may export
// `model` the same way: an AI SDK language model or a model client, or a factory of one; and
// `close()`, which the worker calls after it stops (an MCP connection to end, say).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import type { AgentsModuleContext } from "../lib/sdk/agents-module";
import { asModelClient } from "../lib/sdk/ai/as-model-client";
import { type Agent, isAgent } from "../lib/sdk/define";
import type { ModelClient } from "../lib/sdk/model";

export type LoadedAgents = {
  agents: Agent[];
  model?: ModelClient;
  from: string;
  /** The module's `close` export (what it holds open), called once the worker has stopped. */
  close: () => Promise<void>;
};

const agentsSchema = z
  .array(z.unknown())
  .min(1, "the module's agents are an empty list")
  .refine((list) => list.every(isAgent), "every item must be an agent made with defineAgent");

/** Resolves `specifier` against the working directory (a path) or as a package name. */
export function moduleUrl(specifier: string, cwd = process.cwd()): string {
  if (specifier.startsWith(".") || path.isAbsolute(specifier)) {
    return pathToFileURL(path.resolve(cwd, specifier)).href;
  }
  return specifier;
}

async function resolveExport(exported: unknown, context: AgentsModuleContext): Promise<unknown> {
  return typeof exported === "function" ? await exported(context) : exported;
}

export async function loadAgentsModule(
  specifier: string,
  context: AgentsModuleContext,
): Promise<LoadedAgents> {
  const url = moduleUrl(specifier);
  let mod: Record<string, unknown>;
  try {
    mod = await import(url);
  } catch (err) {
    throw new Error(`could not load the agents module ${specifier}: ${(err as Error).message}`);
  }
  const exported = mod.agents ?? mod.default;
  if (exported === undefined) {
    throw new Error(
      `the agents module ${specifier} exports neither "agents" nor a default: export an array of agents or a function that returns one`,
    );
  }
  const agents = agentsSchema.safeParse(await resolveExport(exported, context));
  if (!agents.success) {
    throw new Error(`the agents module ${specifier}: ${z.prettifyError(agents.error)}`);
  }
  const exportedModel =
    mod.model === undefined ? undefined : await resolveExport(mod.model, context);
  const model = exportedModel === undefined ? undefined : asModelClient(exportedModel);
  if (exportedModel !== undefined && !model) {
    throw new Error(
      `the agents module ${specifier} exports a "model" that is neither an AI SDK language model nor a model client`,
    );
  }
  const close = mod.close;
  if (close !== undefined && typeof close !== "function") {
    throw new Error(`the agents module ${specifier} exports a "close" that is not a function`);
  }
  return {
    agents: agents.data as Agent[],
    model,
    from: specifier,
    close: async () => {
      if (typeof close === "function") await close();
    },
  };
}
