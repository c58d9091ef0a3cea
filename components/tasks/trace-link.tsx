/**
 * "Open trace": the task's trace in the tracing backend (TRACE_URL_TEMPLATE, docs/tracing.md),
 * in a new tab without handing it this page (noopener noreferrer). Nothing without a URL: the
 * template is not configured or the task was enqueued without a traceparent.
 */
export function TraceLink({ href }: { href: string | null }) {
  if (!href) return null;
  return (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer"
      className="font-medium text-sky-800 underline-offset-2 hover:underline"
      data-testid="trace-link"
    >
      Open trace<span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
}
