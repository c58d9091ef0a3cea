import type { ReactNode } from "react";

type CardProps = {
  title: string;
  /** Used as the section's id and to name it for assistive technology. */
  id: string;
  description?: ReactNode;
  action?: ReactNode;
  children: ReactNode;
};

/** A titled section of a screen. Its heading names the region, so it is a landmark to jump to. */
export function Card({ title, id, description, action, children }: CardProps) {
  const headingId = `${id}-heading`;
  return (
    <section
      id={id}
      aria-labelledby={headingId}
      className="rounded-lg border border-slate-200 bg-white shadow-sm"
    >
      <div className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-100 px-4 py-3 sm:px-5">
        <div>
          <h2 id={headingId} className="text-base font-semibold text-slate-900">
            {title}
          </h2>
          {description ? <p className="mt-0.5 text-sm text-slate-600">{description}</p> : null}
        </div>
        {action ? <div className="text-sm">{action}</div> : null}
      </div>
      <div className="px-4 py-4 sm:px-5">{children}</div>
    </section>
  );
}
