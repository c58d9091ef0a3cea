// A screen's filter form: a GET form through next/form (a client-side navigation, and a plain
// GET without JavaScript), so the address holds the whole filter and can be shared. Its fields
// use defaultValue; the form is remounted whenever the filter in the address changes, so after
// back or forward they show that address's filter, not what was typed before.
import Form from "next/form";
import type { ReactNode } from "react";
import { filterKey } from "./filter-values";

export function FilterForm({
  label,
  action,
  values,
  className,
  children,
}: {
  /** Names the <search> landmark. */
  label: string;
  action: string;
  /** The filter as the address has it. */
  values: Record<string, string | undefined>;
  className?: string;
  children: ReactNode;
}) {
  return (
    <search aria-label={label} className="block">
      <Form key={filterKey(values)} action={action} className={className}>
        {children}
      </Form>
    </search>
  );
}
