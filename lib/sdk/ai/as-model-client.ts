// The worker's model as a team hands it over: one of our model clients (aiModel(…), the
// scripted demo model), or an AI SDK language model as it comes from its provider package.
import type { LanguageModel } from "ai";
import type { ModelClient } from "../model";
import { aiModel } from "./model";

export type AnyModel = ModelClient | Exclude<LanguageModel, string>;

export function isModelClient(m: unknown): m is ModelClient {
  return typeof m === "object" && m !== null && typeof (m as ModelClient).generate === "function";
}

export function isLanguageModel(m: unknown): m is Exclude<LanguageModel, string> {
  return (
    typeof m === "object" &&
    m !== null &&
    typeof (m as { doGenerate?: unknown }).doGenerate === "function" &&
    typeof (m as { specificationVersion?: unknown }).specificationVersion === "string"
  );
}

/** The model client for `m`, or undefined when it is neither (the caller says what is wrong). */
export function asModelClient(m: unknown): ModelClient | undefined {
  if (isModelClient(m)) return m;
  if (isLanguageModel(m)) return aiModel(m);
  return undefined;
}
