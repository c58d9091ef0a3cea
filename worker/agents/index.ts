// The agents this worker runs. A worker claims only tasks of agents it has, so tasks for an
// agent deployed elsewhere wait for a worker that has it.
import type { Agent } from "../../lib/sdk/define";

export const agents: readonly Agent[] = [];
