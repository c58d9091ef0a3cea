// `agent-ledger/ai`: the bridge to the Vercel AI SDK. Any AI SDK language model as the worker's
// model (with a price table), AI SDK tools made durable, and the types of ctx.generateText.
export * from "../lib/sdk/ai/index";
