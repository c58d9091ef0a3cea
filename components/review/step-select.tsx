"use client";
// Where a replay starts, chosen by name from the journal ("3 · tool send_email"), not typed as
// a bare number; the step after the last journaled one runs only what was never reached.
import type { ReactNode } from "react";
import { inputClass } from "./review-kit";

export type JournalStep = { seq: number; kind: string; name: string };

export function stepLabel(step: JournalStep): string {
  return `${step.seq} · ${step.kind} ${step.name}`;
}

export function StepSelect({
  id,
  steps,
  lastStep,
  value,
  onChange,
  describedBy,
}: {
  id: string;
  steps: readonly JournalStep[];
  lastStep: number;
  value: number;
  onChange: (step: number) => void;
  describedBy?: string;
}) {
  const bySeq = new Map(steps.map((s) => [s.seq, s]));
  const options = Array.from({ length: lastStep + 1 }, (_, i) => i + 1);
  return (
    <select
      id={id}
      name="fromStep"
      value={value}
      onChange={(e) => onChange(Number(e.target.value))}
      className={`${inputClass} max-w-md`}
      aria-describedby={describedBy}
      data-testid="step-select"
    >
      {options.map((seq) => {
        const step = bySeq.get(seq);
        return (
          <option key={seq} value={seq}>
            {step
              ? stepLabel(step)
              : seq === lastStep + 1
                ? `${seq} · after the last journaled step`
                : `${seq} · (not journaled)`}
          </option>
        );
      })}
    </select>
  );
}

/** The labelled "Replay from step" picker both replay forms open with, with an optional hint. */
export function StepField({
  id,
  hint,
  ...select
}: {
  id: string;
  steps: readonly JournalStep[];
  lastStep: number;
  value: number;
  onChange: (step: number) => void;
  hint?: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        Replay from step
      </label>
      <StepSelect id={id} {...select} describedBy={hint ? `${id}-hint` : undefined} />
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
    </div>
  );
}
