// A checkpoint commits to every stream head at once: a digest over the sorted heads, so a
// stream deleted wholesale (entries and head) is still missed by the next verify.
import { z } from "zod";
import { sha256Hex } from "./hash";
import { canonicalJson } from "./json";

export const CHECKPOINT_KIND = "ledger.checkpoint";

export type StreamHead = { stream: string; seq: number; hash: string };

export const checkpointDataSchema = z.object({
  streams: z.array(z.object({ stream: z.string(), seq: z.number().int(), hash: z.string() })),
  digest: z.string(),
  algorithm: z.literal("ed25519").optional(),
  publicKey: z.string().optional(),
  signature: z.string().optional(),
});
export type CheckpointData = z.infer<typeof checkpointDataSchema>;

export function headsDigest(heads: readonly StreamHead[]): string {
  const sorted = [...heads].sort((a, b) =>
    a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0,
  );
  return sha256Hex(canonicalJson(sorted));
}
