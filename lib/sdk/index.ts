// The library's entry point for agent authors and the user's own code.

export type { ReceivedEvent, WaitOptions, WaitResult } from "../domain/events";
export { parseRetryAfter } from "../domain/rate-limit";
export type { AgentsModuleContext } from "./agents-module";
export type {
  Agent,
  AgentContext,
  AgentSchedule,
  ChildTask,
  JoinedChild,
  JoinResult,
  SpawnOptions,
  Tool,
  ToolExecuteContext,
} from "./define";
export { defineAgent, defineTool } from "./define";
export { enqueue, InvalidTaskInputError } from "./enqueue";
export { type EnqueueManyItem, enqueueMany, InvalidTaskBatchError } from "./enqueue-many";
export {
  EffectNotPerformedError,
  NonRetryableError,
  RateLimitedError,
  rateLimitedFrom,
} from "./errors";
export type { GenerateTextRequest, GenerateTextResult } from "./generate-text";
export type { ModelClient, ModelRequest, ModelResponse } from "./model";
export { InvalidEventError, type SendEventOptions, sendEvent } from "./send-event";
