import Link from "next/link";
import type { ReactNode } from "react";

type NoticeProps = {
  tone: "error" | "info";
  title: string;
  children?: ReactNode;
};

/** A message about the page itself (bad input, unavailable section). Errors are announced. */
export function Notice({ tone, title, children }: NoticeProps) {
  const look =
    tone === "error"
      ? "border-rose-300 bg-rose-50 text-rose-900"
      : "border-sky-300 bg-sky-50 text-sky-900";
  return (
    <div
      role={tone === "error" ? "alert" : "status"}
      className={`rounded-md border px-4 py-3 ${look}`}
    >
      <p className="font-medium">{title}</p>
      {children ? <div className="mt-1 text-sm">{children}</div> : null}
    </div>
  );
}

/** The page's address (search params) did not parse: say what was wrong and how to start over. */
export function InvalidAddressNotice({
  title,
  errors,
  resetHref,
  resetLabel,
}: {
  title: string;
  errors: readonly string[];
  resetHref: string;
  resetLabel: string;
}) {
  return (
    <Notice tone="error" title={title}>
      <ul className="list-disc pl-5">
        {errors.map((e) => (
          <li key={e}>{e}</li>
        ))}
      </ul>
      <p className="mt-2">
        <Link href={resetHref} className="font-medium underline">
          {resetLabel}
        </Link>
      </p>
    </Notice>
  );
}
