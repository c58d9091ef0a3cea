"use client";
// Admins set a model's price over the worker's configured one and the shipped default, or clear
// theirs so those apply again. The form carries the version it was loaded at, so two admins
// editing at once cannot overwrite each other unknowingly.
import { useId } from "react";
import { setModelPriceAction } from "../../lib/actions/policies";
import { describePrice } from "../../lib/domain/model-price-form";
import type { ModelPriceDto } from "../../lib/server/queries/list-model-prices";
import { FormFoot, fieldsOf, SettingDialog, useDialogReview } from "../review/review-kit";
import { TextField } from "../ui/field";

const FIELDS = ["inputPerMTok", "cachedInputPerMTok", "outputPerMTok"] as const;
const LABEL: Record<(typeof FIELDS)[number], string> = {
  inputPerMTok: "Input",
  cachedInputPerMTok: "Cached input",
  outputPerMTok: "Output",
};

function ModelPriceForm({ model, close }: { model: ModelPriceDto; close: () => void }) {
  const { feedback, pending, run } = useDialogReview(close);
  const id = useId();
  const errors = fieldsOf(feedback);
  const version = model.admin?.version ?? null;
  const submit = (data: FormData) =>
    run(
      setModelPriceAction,
      {
        model: model.model,
        version: version === null ? "" : String(version),
        ...Object.fromEntries(FIELDS.map((f) => [f, String(data.get(f) ?? "")])),
      },
      (v) =>
        v.version === null
          ? `Cleared the admin's price of ${model.model}.`
          : `Saved the price of ${model.model} (version ${v.version}). Calls recorded from now on are charged it.`,
    );
  return (
    <form
      className="space-y-4"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit(new FormData(event.currentTarget));
      }}
    >
      <p className="text-sm text-slate-700">
        US dollars per million tokens, for calls recorded after you save, on every worker; it wins
        over a worker&apos;s MODEL_PRICES and the shipped default (
        {model.default ? describePrice(model.default) : "none"}). Cached input empty: it costs what
        other input costs. Leave all fields empty to clear the admin&apos;s price. The change is
        recorded in the ledger with before, after and you.
      </p>
      <div className="grid gap-4 sm:grid-cols-3">
        {FIELDS.map((name) => {
          const inputId = `${id}-${name}`;
          const error = errors[name];
          const value = model.admin?.[name];
          const fallback = model.default?.[name];
          return (
            <TextField
              key={name}
              id={inputId}
              name={name}
              label={LABEL[name]}
              hint="($ / Mtok)"
              inputMode="decimal"
              defaultValue={value === undefined ? "" : String(value)}
              placeholder={fallback === undefined ? "" : `${fallback} (default)`}
              error={error}
            />
          );
        })}
      </div>
      <FormFoot feedback={feedback} shownFields={FIELDS} pending={pending} close={close}>
        {pending ? "Saving…" : "Save price"}
      </FormFoot>
    </form>
  );
}

export function EditModelPrice({ model }: { model: ModelPriceDto }) {
  return (
    <SettingDialog
      isSet={model.admin !== null}
      subject={model.model}
      noun="price"
      title={`Price: ${model.model}`}
      testId={`edit-model-price-${model.model}`}
    >
      {(close) => <ModelPriceForm model={model} close={close} />}
    </SettingDialog>
  );
}
