// "Who or what decided it?": the model call that led to the effect, with what it was asked, what
// it answered, the tool call this effect performed and the other calls it proposed alongside.
import type { JsonValue } from "../../lib/domain/json";
import { formatCostUsd } from "../../lib/domain/money";
import type { WhyEffect } from "../../lib/server/queries/why";
import { JsonDetails } from "../tasks/json-view";
import { Timestamp } from "../ui/timestamp";
import { Chapter, Fact, Facts, HiddenPayload, isHidden, Payload, Prose, plural } from "./story-kit";

type Decision = NonNullable<WhyEffect["decision"]>;
type ToolCall = { toolName: string; args: JsonValue };

function asToolCalls(value: JsonValue): ToolCall[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) =>
    typeof item === "object" &&
    item !== null &&
    !Array.isArray(item) &&
    typeof item.toolName === "string"
      ? [{ toolName: item.toolName, args: item.args ?? null }]
      : [],
  );
}

/** The calls the model proposed besides the one this effect performed. */
function OtherCalls({ decision, name }: { decision: Decision; name: string }) {
  const chosen = decision.chosenCall?.index ?? -1;
  const heading = (
    <h5 className="mb-1 text-xs font-medium tracking-wide text-slate-600 uppercase">
      Other tool calls it proposed
    </h5>
  );
  if (isHidden(decision.toolCalls)) {
    return (
      <div>
        {heading}
        <HiddenPayload />
      </div>
    );
  }
  const others = asToolCalls(decision.toolCalls)
    .map((call, index) => ({ call, index }))
    .filter(({ index }) => index !== chosen);
  return (
    <div>
      {heading}
      {others.length === 0 ? (
        <p className="text-slate-600">None: this was the only call.</p>
      ) : (
        <ol aria-label="Other tool calls the model proposed" className="space-y-2">
          {others.map(({ call, index }) => (
            <li key={index} className="min-w-0">
              <span className="text-slate-600">Call {index + 1}:</span>{" "}
              <span className="font-mono">{call.toolName}</span>
              <JsonDetails
                value={call.args}
                label={`Arguments of proposed call ${index + 1} (${name})`}
                summary="Arguments"
              />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function DecisionChapter({ why, idBase }: { why: WhyEffect; idBase: string }) {
  const { decision } = why;
  const name = `${why.effect.tool} ${why.effect.key.slice(0, 12)}`;
  if (!decision) {
    return (
      <Chapter id={`${idBase}-decision`} title="Who decided it">
        <p>
          No model call came before this effect in the task's record: the agent's own code chose it
          (a scripted workflow), from the task's input below.
        </p>
      </Chapter>
    );
  }
  const calls = isHidden(decision.toolCalls) ? null : asToolCalls(decision.toolCalls).length;
  return (
    <Chapter id={`${idBase}-decision`} title="Who decided it: the model">
      <p>
        At step {decision.step} the model{" "}
        {decision.model ? <span className="font-mono">{decision.model}</span> : null} was asked and
        answered with {calls === null ? "tool calls" : plural(calls, "tool call")}.{" "}
        {decision.chosenCall
          ? `This effect performs call ${decision.chosenCall.index + 1}, ${decision.chosenCall.toolName}.`
          : "None of them names this tool."}
      </p>
      <Facts>
        <Fact term="Asked">
          <Timestamp iso={decision.at} />
        </Fact>
        <Fact term="By">
          <span className="font-mono text-xs break-all">{decision.actor}</span>
        </Fact>
        <Fact term="Tools offered">
          {decision.toolsOffered.length === 0 ? (
            "None"
          ) : (
            <span className="font-mono text-xs">{decision.toolsOffered.join(", ")}</span>
          )}
        </Fact>
        {decision.usage ? (
          <Fact term="Tokens">
            {decision.usage.inputTokens.toLocaleString("en-US")} in,{" "}
            {decision.usage.outputTokens.toLocaleString("en-US")} out
          </Fact>
        ) : null}
        {decision.cost !== null ? <Fact term="Cost">{formatCostUsd(decision.cost)}</Fact> : null}
        <Fact term="Ledger entry">#{decision.ledgerEntryId}</Fact>
      </Facts>
      <Prose title="System prompt" value={decision.system} />
      <Prose title="Prompt" value={decision.prompt} />
      <Prose title="The model's reply" value={decision.text} />
      {decision.chosenCall ? (
        <Payload
          title={
            <>
              Chosen call:{" "}
              <span className="font-mono normal-case">{decision.chosenCall.toolName}</span> with
              these arguments
            </>
          }
          value={decision.chosenCall.args}
          label={`Arguments the model chose (${name})`}
        />
      ) : (
        <p className="text-slate-600">
          None of the proposed calls names this tool: the agent's code turned the answer into this
          effect.
        </p>
      )}
      <OtherCalls decision={decision} name={name} />
    </Chapter>
  );
}
