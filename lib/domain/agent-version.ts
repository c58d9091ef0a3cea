// An agent's code version: what its author says (`defineAgent({ version })`), or one derived
// from what its workers publish and its run function's source, so two builds that differ in
// anything a task could notice get two versions and the same code on every worker gets one.
import { sha256Hex } from "./hash";
import { canonicalJson } from "./json";

/** A version an author may write: 1.4.0, 2026-12-02, v3+hotfix. No spaces, at most 64 characters. */
export const AGENT_VERSION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$/;

/**
 * `sha-` and the first 8 hex digits of sha256 over the canonical catalog entry (input schema,
 * tools and their flags, policy) and the run function's source text.
 */
export function derivedAgentVersion(published: unknown, runSource: string): string {
  return `sha-${sha256Hex(canonicalJson({ published, run: runSource })).slice(0, 8)}`;
}
