// The answer to one lookup: what was searched, a story per matching effect (newest first), or a
// plain "nothing matched" that repeats the search and says where such a thing is recorded.
import Link from "next/link";
import { WHY_MAX_LIMIT, type WhyAnswer } from "../../lib/server/queries/why";
import { taskHref } from "../tasks/task-link";
import { EmptyState } from "../ui/empty-state";
import { Notice } from "../ui/notice";
import { EffectStory, effectAnchor } from "./effect-story";
import { LOOKUP_NOUN, type Lookup } from "./labels";
import { plural } from "./story-kit";

const linkClass = "font-medium text-sky-800 underline-offset-2 hover:underline";

/** The canonical, linkable address of a lookup. */
export function whyHref(by: Lookup, value: string, limit?: number | string): string {
  const query = new URLSearchParams({ [by]: value });
  if (limit !== undefined) query.set("limit", String(limit));
  return `/why?${query.toString()}`;
}

const WHERE_RECORDED: Record<Lookup, string> = {
  recipient:
    "Recipients are matched, in any case, against the To address of every email an agent sent or tried to send.",
  messageId:
    "A Message-ID is matched against the ones mail servers were given; one whose local part is an effect key also finds that effect, even when its outcome was never recorded.",
  refundId:
    "Refund ids come from the payment provider's answer, so a refund that never succeeded has none: look it up by task instead.",
  key: "An effect key is recorded the moment a tool first starts acting.",
  taskId: "The task may not exist, or it has not performed any side effect yet.",
};

function Searched({ by, value }: { by: Lookup; value: string }) {
  return (
    <>
      {LOOKUP_NOUN[by]} <code className="font-mono break-all">{value}</code>
    </>
  );
}

function Contents({ answer }: { answer: WhyAnswer }) {
  if (answer.effects.length < 2) return null;
  return (
    <nav aria-label="Effects in this answer" className="text-sm">
      <ol className="flex flex-wrap gap-2">
        {answer.effects.map((e) => (
          <li key={e.effect.key}>
            <a
              href={`#${effectAnchor(e.effect.key)}`}
              className="inline-block rounded-full border border-slate-300 bg-white px-3 py-1 font-mono text-xs text-slate-700 shadow-xs hover:bg-slate-50"
            >
              {e.effect.tool} {e.effect.key.slice(0, 8)}
            </a>
          </li>
        ))}
      </ol>
    </nav>
  );
}

export function WhyAnswerView({ answer }: { answer: WhyAnswer }) {
  const { by, value } = answer.query;
  const count = answer.effects.length;
  return (
    <section aria-labelledby="why-answer-heading" className="space-y-4" data-testid="why-answer">
      <h2 id="why-answer-heading" className="text-lg font-semibold text-slate-900">
        {count === 0 ? (
          <>
            Nothing matched <Searched by={by} value={value} />
          </>
        ) : (
          <>
            {plural(count, "effect")} for <Searched by={by} value={value} />
            {count > 1 ? <span className="font-normal text-slate-600">, newest first</span> : null}
          </>
        )}
      </h2>
      {answer.payloadsHidden ? (
        <Notice tone="info" title="Payloads are hidden from you.">
          Arguments, results, prompts and inputs need the payloads:read permission; each is replaced
          by the marker it carries. Who acted, what and when are all shown.
        </Notice>
      ) : null}
      {answer.truncated ? (
        <Notice tone="info" title={`More effects matched than the ${answer.limit} shown.`}>
          The oldest were left out.{" "}
          {answer.limit < WHY_MAX_LIMIT ? (
            <Link href={whyHref(by, value, WHY_MAX_LIMIT)} className="font-medium underline">
              Show up to {WHY_MAX_LIMIT}
            </Link>
          ) : (
            "Narrow the lookup, for example to one task."
          )}
        </Notice>
      ) : null}
      {count === 0 ? (
        <EmptyState title="No side effect matches this lookup.">
          <p>
            Searched for <Searched by={by} value={value} />. {WHERE_RECORDED[by]}
          </p>
          {by === "taskId" ? (
            <p className="mt-2">
              <Link href={taskHref(value)} prefetch={false} className={linkClass}>
                Open the task
              </Link>
            </p>
          ) : null}
        </EmptyState>
      ) : (
        <>
          <Contents answer={answer} />
          {answer.effects.map((e) => (
            <EffectStory key={e.effect.key} why={e} />
          ))}
        </>
      )}
    </section>
  );
}
