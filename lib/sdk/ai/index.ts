// agent-ledger/ai: the bridge to the Vercel AI SDK. Any AI SDK language model as the worker's
// model, AI SDK tools made durable, and the types of ctx.generateText, the durable agent loop.
export type {
  GenerateTextRequest,
  GenerateTextResult,
  LoopStopCondition,
  LoopToolCall,
  LoopToolResult,
  TurnStopCondition,
  TurnView,
} from "../generate-text";
export { DEFAULT_MAX_TURNS } from "../generate-text";
export type { ModelClient, ModelPricing, ModelResponse, ModelUsage } from "../model";
export { type AnyModel, asModelClient } from "./as-model-client";
export { type DurableToolOptions, durableTool } from "./durable-tool";
export { type AiModelOptions, aiModel } from "./model";
export {
  DEFAULT_PRICES,
  lookupPrice,
  type ModelPrices,
  pricedBy,
  priceOf,
  priceUsage,
} from "./prices";
