// What a replay from step 1 would do, before anyone confirms it: which steps run again and, for
// each effect already keyed, whether the replay returns the stored result or acts.
import { mayChange, type ReplayPreview } from "../../lib/domain/replay-plan";
import { Badge } from "../ui/badge";
import { EFFECT_STATUS_LABEL } from "../ui/labels";
import { Stat } from "../ui/stat";
import { Table, Td, Th } from "../ui/table";
import { REPLAY_OUTCOME_HINT, REPLAY_OUTCOME_LABEL, REPLAY_OUTCOME_TONE } from "./labels";
import { ShortHash } from "./short-hash";

export function ReplayPreviewView({
  preview,
  supersedesApproval,
}: {
  preview: ReplayPreview;
  /** A pending approval the replay would set aside (the re-run asks again if it still needs it). */
  supersedesApproval: boolean;
}) {
  const count = (outcome: string) => preview.effects.filter((e) => e.outcome === outcome).length;
  const firstChanging = preview.rerun.find(mayChange);
  return (
    <div className="space-y-4">
      <p className="text-sm text-slate-700">
        A replay from step {preview.fromStep} discards the journal from that step and runs the agent
        again with the same keys. An effect whose key already succeeded returns its stored result
        instead of acting.
      </p>
      <ul className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        <li>
          <Stat label="Steps run again" value={preview.rerun.length} testId="replay-rerun" />
        </li>
        <li>
          <Stat label="Deduplicated" value={count("dedupe")} tone="good" testId="replay-dedupe" />
        </li>
        <li>
          <Stat label="Would act" value={count("act")} tone="warn" testId="replay-act" />
        </li>
        <li>
          <Stat
            label="Unknown or in flight"
            value={count("outcome_unknown") + count("in_flight")}
            tone="bad"
            testId="replay-unknown"
          />
        </li>
      </ul>
      {preview.effects.length === 0 ? (
        <p className="rounded-md border border-dashed border-slate-300 bg-slate-50 px-4 py-3 text-sm text-slate-700">
          No side effect has been keyed for this task yet, so nothing would be deduplicated: every
          effect the re-run reaches acts for the first time.
        </p>
      ) : (
        <Table caption={`Effects a replay from step ${preview.fromStep} would reach`}>
          <thead>
            <tr>
              <Th align="right">Step</Th>
              <Th>Tool</Th>
              <Th>Key</Th>
              <Th>Now</Th>
              <Th>On replay</Th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {preview.effects.map((e) => (
              <tr key={e.key} data-replay-key={e.key}>
                <Td align="right" mono>
                  {e.step}
                </Td>
                <Td mono>{e.tool}</Td>
                <Td>
                  <a
                    href={`#effect-${e.key}`}
                    className="text-sky-800 underline-offset-2 hover:underline"
                  >
                    <ShortHash value={e.key} />
                  </a>
                </Td>
                <Td>{EFFECT_STATUS_LABEL[e.status]}</Td>
                <Td>
                  <span className="block space-y-1">
                    <Badge tone={REPLAY_OUTCOME_TONE[e.outcome]}>
                      {REPLAY_OUTCOME_LABEL[e.outcome]}
                    </Badge>
                    <span className="block max-w-[28rem] text-xs text-slate-700">
                      {REPLAY_OUTCOME_HINT[e.outcome]}
                    </span>
                    {e.mayChange && firstChanging ? (
                      <span className="block max-w-[28rem] text-xs text-amber-900">
                        Step {firstChanging.seq} ({firstChanging.kind} “{firstChanging.name}”) runs
                        again before it and may decide differently: another intent is a new key that
                        acts; the same intent with other arguments is a payload mismatch.
                      </span>
                    ) : null}
                  </span>
                </Td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {supersedesApproval ? (
        <p className="text-sm text-slate-700">
          The pending approval would be set aside: if the re-run reaches the gated effect again, it
          asks again for the arguments it then has.
        </p>
      ) : null}
      <p className="text-sm text-slate-600">
        This is a preview. A reviewer replays from Review above, where the preview for the chosen
        step is shown again to confirm.
      </p>
    </div>
  );
}
