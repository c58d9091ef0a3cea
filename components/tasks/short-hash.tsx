/** A 64-character key or fingerprint: the first 12 characters, the whole value on hover. */
export function ShortHash({ value, chars = 12 }: { value: string; chars?: number }) {
  return (
    <span className="font-mono text-xs" title={value}>
      {value.length > chars ? `${value.slice(0, chars)}…` : value}
    </span>
  );
}

/** The whole value, wrapping anywhere, for where a reviewer compares it character by character. */
export function FullHash({ value }: { value: string }) {
  return <span className="font-mono text-xs break-all text-slate-800">{value}</span>;
}
