/**
 * A point in time, shown in UTC so every reviewer reading the ledger sees the same clock, with
 * the exact ISO value in the machine-readable attribute and the tooltip.
 */
export function Timestamp({ iso }: { iso: string }) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  const text = `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  return (
    <time dateTime={date.toISOString()} title={iso} className="whitespace-nowrap tabular-nums">
      {text}
    </time>
  );
}
