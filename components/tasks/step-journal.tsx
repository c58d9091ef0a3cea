// The task's step journal: every durable operation in call order, with what it returned. A
// later attempt returns these results instead of doing the work again.
import type { JsonValue } from "../../lib/domain/json";
import { modelCallCost } from "../../lib/domain/ledger-summary";
import type { StepDto } from "../../lib/server/queries/get-task-detail";
import { Badge } from "../ui/badge";
import { Table, Td, Th } from "../ui/table";
import { Timestamp } from "../ui/timestamp";
import { JsonDetails } from "./json-view";
import { ShortHash } from "./short-hash";

const KIND_LABEL: Record<StepDto["kind"], string> = {
  model: "Model",
  tool: "Tool",
  step: "Step",
  sleep: "Sleep",
  spawn: "Child task",
  wait: "Wait for event",
  join: "Join children",
};

type ModelResult = { text?: unknown; toolCalls?: unknown; cost?: unknown };

/** A model step reads best as what it said and which tools it chose. */
function modelSummary(result: JsonValue): string | null {
  if (typeof result !== "object" || result === null || Array.isArray(result)) return null;
  const r = result as ModelResult;
  const calls = Array.isArray(r.toolCalls)
    ? r.toolCalls
        .map((c: unknown) =>
          typeof c === "object" && c !== null && "toolName" in c ? String(c.toolName) : null,
        )
        .filter((n): n is string => n !== null)
    : [];
  const text = typeof r.text === "string" && r.text.trim() !== "" ? `“${r.text.trim()}”` : null;
  const parts = [text, calls.length > 0 ? `chose ${calls.join(", ")}` : "chose no tool"];
  return parts.filter(Boolean).join(" · ");
}

function ResultCell({ step }: { step: StepDto }) {
  if (step.status !== "completed") return <span className="text-slate-600">Not finished</span>;
  if (step.result === null) {
    return (
      <span className="text-slate-600">
        {step.kind === "tool" ? "See the effect" : "No result"}
      </span>
    );
  }
  const summary = step.kind === "model" ? modelSummary(step.result) : null;
  return (
    <div className="min-w-0 space-y-1">
      {summary ? (
        <p className="line-clamp-2 max-w-[32rem] break-words text-slate-800">{summary}</p>
      ) : null}
      {step.kind === "model" ? (
        <p className="max-w-[32rem] text-xs text-slate-600" data-testid="model-call-cost">
          {modelCallCost(step.result)}
        </p>
      ) : null}
      <JsonDetails
        value={step.result}
        label={`Result of step ${step.seq}`}
        summary={summary ? "Full result" : "Result"}
      />
    </div>
  );
}

export function StepJournal({ steps }: { steps: StepDto[] }) {
  return (
    <Table caption="Step journal, in call order">
      <thead>
        <tr>
          <Th align="right">Seq</Th>
          <Th>Kind</Th>
          <Th>Name</Th>
          <Th>Result</Th>
          <Th>Effect key</Th>
          <Th align="right">Attempt</Th>
          <Th>Completed</Th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100">
        {steps.map((s) => (
          <tr key={s.seq} data-step-seq={s.seq}>
            <Td align="right" mono>
              {s.seq}
            </Td>
            <Td>
              <Badge tone={s.kind === "tool" ? "info" : "neutral"}>{KIND_LABEL[s.kind]}</Badge>
            </Td>
            <Td mono>{s.name}</Td>
            <Td>
              <ResultCell step={s} />
            </Td>
            <Td>
              {s.effectKey ? (
                <a
                  href={`#effect-${s.effectKey}`}
                  className="text-sky-800 underline-offset-2 hover:underline"
                >
                  <ShortHash value={s.effectKey} />
                </a>
              ) : (
                <span className="text-slate-600">—</span>
              )}
            </Td>
            <Td align="right">{s.attempt}</Td>
            <Td>
              {s.completedAt ? (
                <Timestamp iso={s.completedAt} />
              ) : (
                <span className="text-slate-600">
                  Started <Timestamp iso={s.startedAt} />
                </span>
              )}
            </Td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
