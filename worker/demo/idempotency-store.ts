// Stripe's idempotency layer for the demo: the first request with a key is processed and its
// answer kept; a repeat gets that answer back, a repeat with other parameters is refused, and a
// repeat while the first is still running is told to wait. Keys expire after ttlMs.

export type StoredResponse = { status: number; body: unknown; refundId: string | null };

export type Claim =
  /** First use: process the request, then finish (keep the answer) or release (forget the key). */
  | { kind: "new"; finish(response: StoredResponse): void; release(): void }
  | { kind: "replay"; response: StoredResponse }
  | { kind: "in_flight" }
  | { kind: "mismatch" };

export type IdempotencyStore = {
  claim(key: string, fingerprint: string): Claim;
  clear(): void;
};

type Entry = {
  fingerprint: string;
  firstUsedAt: number;
  response: StoredResponse | null;
};

export function createIdempotencyStore(opts: {
  ttlMs: number;
  now: () => number;
}): IdempotencyStore {
  const entries = new Map<string, Entry>();

  function live(key: string): Entry | undefined {
    const entry = entries.get(key);
    if (entry !== undefined && opts.now() - entry.firstUsedAt >= opts.ttlMs) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  }

  return {
    claim(key, fingerprint) {
      const existing = live(key);
      if (existing === undefined) {
        const entry: Entry = { fingerprint, firstUsedAt: opts.now(), response: null };
        entries.set(key, entry);
        return {
          kind: "new",
          finish(response) {
            entry.response = response;
          },
          release() {
            // Only if the key still belongs to this request: a reset may have dropped it and a
            // later request claimed it again since.
            if (entries.get(key) === entry) entries.delete(key);
          },
        };
      }
      // Different parameters are refused even while the first request runs: waiting would not
      // make the repeat acceptable.
      if (existing.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (existing.response === null) return { kind: "in_flight" };
      return { kind: "replay", response: existing.response };
    },
    clear() {
      entries.clear();
    },
  };
}
