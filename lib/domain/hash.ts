// Hashes that the promises rest on: effect keys derived from intent, payload fingerprints,
// and the per-stream ledger hash chain.
import { createHash } from "node:crypto";
import { canonicalJson, type JsonValue } from "./json";

export const GENESIS_HASH = "0".repeat(64);

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** `key = sha256(canonical_json([taskId, tool, intent]))`: the same intent gives the same key on every attempt. */
export function deriveEffectKey(taskId: string, tool: string, intent: JsonValue): string {
  return sha256Hex(canonicalJson([taskId, tool, intent]));
}

/** sha256 of the canonical, already redacted arguments. */
export function payloadFingerprint(redactedArgs: JsonValue): string {
  return sha256Hex(canonicalJson(redactedArgs));
}

/** The fields of a ledger entry that its hash covers. `at` is an ISO-8601 string with milliseconds. */
export type HashedEntry = {
  stream: string;
  seq: number;
  at: string;
  kind: string;
  actor: string;
  taskId: string | null;
  key: string | null;
  data: JsonValue;
};

/** `hash = sha256(prev_hash ‖ canonical(entry))`. */
export function entryHash(prevHash: string, entry: HashedEntry): string {
  return sha256Hex(
    prevHash +
      canonicalJson({
        stream: entry.stream,
        seq: entry.seq,
        at: entry.at,
        kind: entry.kind,
        actor: entry.actor,
        taskId: entry.taskId,
        key: entry.key,
        data: entry.data,
      }),
  );
}
