// "What was done?": the tool, its key, how it stands, what it was asked and what came back.
import type { WhyEffect } from "../../lib/server/queries/why";
import { EFFECT_STATE_HINT } from "../tasks/labels";
import { FullHash } from "../tasks/short-hash";
import { Timestamp } from "../ui/timestamp";
import { Chapter, Fact, Facts, Payload, plural } from "./story-kit";

function outcomeTitle(effect: WhyEffect["effect"]): string {
  if (effect.state === "succeeded") return "Result";
  if (effect.state === "failed") return "Error";
  return effect.error === null ? "Result" : "Last error";
}

export function WhatWasDone({ why, idBase }: { why: WhyEffect; idBase: string }) {
  const { effect, step } = why;
  const outcome =
    effect.state === "succeeded" ? effect.result : effect.error === null ? null : effect.error;
  return (
    <Chapter id={`${idBase}-done`} title="What was done">
      <p>{EFFECT_STATE_HINT[effect.state]}</p>
      <Facts>
        <Fact term="Tool">
          <span className="font-mono">{effect.tool}</span>
        </Fact>
        <Fact term="Started">
          <Timestamp iso={effect.createdAt} />
        </Fact>
        <Fact term="Completed">
          {effect.completedAt ? <Timestamp iso={effect.completedAt} /> : "Not completed"}
        </Fact>
        <Fact term="Step">
          {step ? (
            <>
              #{step.seq} <span className="font-mono">{step.name}</span>, in attempt {step.attempt}
            </>
          ) : (
            <>
              #{effect.stepSeq}{" "}
              <span className="text-slate-600">
                (a replay cleared this step from the journal and has not run it again)
              </span>
            </>
          )}
        </Fact>
        <Fact term="Provider asked">{plural(effect.attempts, "time")}</Fact>
        {effect.state === "in_flight" && effect.leaseOwner ? (
          <Fact term="Held by">
            <span className="font-mono text-xs break-all">{effect.leaseOwner}</span>
            {effect.leaseExpiresAt ? (
              <>
                {" "}
                until <Timestamp iso={effect.leaseExpiresAt} />
              </>
            ) : null}
          </Fact>
        ) : null}
      </Facts>
      <Facts>
        <Fact term="Idempotency key">
          <FullHash value={effect.key} />
        </Fact>
        <Fact term="Payload fingerprint">
          <FullHash value={effect.fingerprint} />
        </Fact>
      </Facts>
      <div className="grid gap-4 lg:grid-cols-3">
        <Payload
          title="Intent (what the key is made of)"
          value={effect.intent}
          label={`Intent of ${effect.tool} ${effect.key}`}
        />
        <Payload
          title={
            <>
              Arguments <span className="normal-case">(redacted)</span>
            </>
          }
          value={effect.args}
          label={`Arguments of ${effect.tool} ${effect.key}`}
        />
        <Payload
          title={outcomeTitle(effect)}
          value={outcome}
          label={`${outcomeTitle(effect)} of ${effect.tool} ${effect.key}`}
          empty={
            effect.state === "outcome_unknown"
              ? "Nothing recorded: the worker stopped before the provider's answer was written down."
              : "No result recorded."
          }
        />
      </div>
    </Chapter>
  );
}
