// The task's side effects, one per idempotency key: what was asked (redacted arguments and
// their fingerprint), what came back, and whether it is done, failed, in flight or unknown.
import Link from "next/link";
import type { EffectDto } from "../../lib/server/queries/get-task-detail";
import type { ToolSourcesDto } from "../../lib/server/queries/tool-sources";
import { Badge } from "../ui/badge";
import { Timestamp } from "../ui/timestamp";
import { JsonView } from "./json-view";
import { EFFECT_STATE_HINT, EFFECT_STATE_LABEL, EFFECT_STATE_TONE } from "./labels";
import { FullHash } from "./short-hash";

function Outcome({ effect }: { effect: EffectDto }) {
  if (effect.state === "succeeded") {
    return effect.result === null ? (
      <p className="text-sm text-slate-600">
        No result in the ledger for this key. The effects table holds the raw result, which this
        screen does not show because it may contain the tool's sensitive fields.
      </p>
    ) : (
      <JsonView value={effect.result} label={`Result of ${effect.tool} ${effect.key}`} />
    );
  }
  if (effect.error !== null) {
    return <JsonView value={effect.error} label={`Error of ${effect.tool} ${effect.key}`} />;
  }
  return <p className="text-sm text-slate-600">No result recorded.</p>;
}

function outcomeHeading(e: EffectDto): string {
  if (e.state === "succeeded") return "Result";
  if (e.state === "failed") return "Error";
  return e.error === null ? "Result" : "Last error";
}

/** "MCP · tickets": the tool is a tool of that MCP server, not the team's own code. */
export function ToolSourceMarker({ source }: { source: ToolSourcesDto[string] | undefined }) {
  if (!source) return null;
  return (
    <span title={`Tool ${source.tool} of MCP server ${source.server} (${source.transport})`}>
      <Badge tone="info">MCP · {source.server}</Badge>
    </span>
  );
}

export function EffectsList({
  effects,
  sources = {},
}: {
  effects: EffectDto[];
  /** The agent's tools that come from an MCP server, by name. */
  sources?: ToolSourcesDto;
}) {
  return (
    <ul className="space-y-4">
      {effects.map((e) => (
        <li
          key={e.key}
          id={`effect-${e.key}`}
          data-effect-key={e.key}
          className="scroll-mt-4 rounded-md border border-slate-200 target:ring-2 target:ring-sky-400"
        >
          <article aria-label={`Effect ${e.tool} at step ${e.stepSeq}`}>
            <header className="flex flex-wrap items-center justify-between gap-2 border-b border-slate-100 bg-slate-50/60 px-4 py-2.5">
              <div className="flex flex-wrap items-center gap-2">
                <h3 className="font-mono text-sm font-semibold text-slate-900">{e.tool}</h3>
                <ToolSourceMarker source={sources[e.tool]} />
                <Badge tone={EFFECT_STATE_TONE[e.state]}>{EFFECT_STATE_LABEL[e.state]}</Badge>
                <span className="text-xs text-slate-600">
                  step {e.stepSeq} · {e.attempts} {e.attempts === 1 ? "try" : "tries"}
                </span>
              </div>
              <div className="text-xs text-slate-600">
                Started <Timestamp iso={e.createdAt} />
                {e.completedAt ? (
                  <>
                    {" "}
                    · completed <Timestamp iso={e.completedAt} />
                  </>
                ) : null}
                {" · "}
                <Link
                  href={`/why?key=${e.key}`}
                  prefetch={false}
                  aria-label={`Why? ${e.tool} at step ${e.stepSeq}`}
                  className="font-medium text-sky-800 underline-offset-2 hover:underline"
                >
                  Why?
                </Link>
              </div>
            </header>
            <div className="space-y-3 px-4 py-3">
              <p className="text-sm text-slate-700">{EFFECT_STATE_HINT[e.state]}</p>
              <dl className="grid gap-x-6 gap-y-2 text-sm md:grid-cols-2">
                <div className="min-w-0">
                  <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">
                    Idempotency key
                  </dt>
                  <dd>
                    <FullHash value={e.key} />
                  </dd>
                </div>
                <div className="min-w-0">
                  <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">
                    Payload fingerprint
                  </dt>
                  <dd>
                    <FullHash value={e.fingerprint} />
                  </dd>
                </div>
                {e.state === "in_flight" && e.leaseOwner ? (
                  <div className="min-w-0">
                    <dt className="text-xs font-medium tracking-wide text-slate-600 uppercase">
                      Held by
                    </dt>
                    <dd className="font-mono text-xs">
                      {e.leaseOwner}
                      {e.leaseExpiresAt ? (
                        <>
                          {" "}
                          until <Timestamp iso={e.leaseExpiresAt} />
                        </>
                      ) : null}
                    </dd>
                  </div>
                ) : null}
              </dl>
              <div className="grid gap-4 lg:grid-cols-2">
                <div className="min-w-0">
                  <h4 className="mb-1 text-xs font-medium tracking-wide text-slate-600 uppercase">
                    Arguments <span className="normal-case">(redacted)</span>
                  </h4>
                  <JsonView value={e.args} label={`Arguments of ${e.tool} ${e.key}`} />
                </div>
                <div className="min-w-0">
                  <h4 className="mb-1 text-xs font-medium tracking-wide text-slate-600 uppercase">
                    {outcomeHeading(e)}
                  </h4>
                  <Outcome effect={e} />
                </div>
              </div>
            </div>
          </article>
        </li>
      ))}
    </ul>
  );
}
