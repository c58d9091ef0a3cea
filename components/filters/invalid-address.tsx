// What a screen shows when its address does not parse: its header, anything the screen keeps
// (its filter form, to correct the address there), and what was wrong with a way to start over.
import type { ReactNode } from "react";
import { InvalidAddressNotice } from "../ui/notice";

export function InvalidAddress({
  header,
  title,
  errors,
  resetHref,
  resetLabel,
  children,
}: {
  header: ReactNode;
  title: string;
  errors: readonly string[];
  resetHref: string;
  resetLabel: string;
  children?: ReactNode;
}) {
  return (
    <>
      {header}
      {children}
      <InvalidAddressNotice
        title={title}
        errors={errors}
        resetHref={resetHref}
        resetLabel={resetLabel}
      />
    </>
  );
}
