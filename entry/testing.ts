// `agent-ledger/testing`: run agents against a throwaway database in a team's own tests, and
// crash their workers at the harness's fault points to prove their tools act once per intent.

export {
  type ScriptedLanguageModel,
  type ScriptedPrompt,
  type ScriptedTurn,
  scriptedLanguageModel,
} from "../lib/sdk/ai/scripted-model";
export { FAULT_POINTS, type FaultPoint } from "../lib/server/fault-points";
export { createScriptedModel as scriptedModel, type Script } from "../worker/models/scripted";
export {
  type CrashTestOptions,
  type CrashTestResult,
  crashTest,
} from "../worker/testing/crash-test";
export { type RunTaskOptions, runTask } from "../worker/testing/run-task";
export { SETTLED, type TaskReport, taskReport } from "../worker/testing/task-report";
export { createTestDatabase, type TestDatabase } from "../worker/testing/test-database";
