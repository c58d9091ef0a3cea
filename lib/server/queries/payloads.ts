// Payloads (task input and result, step results, effect intents, arguments and results, model
// prompts and replies, approval arguments) need `payloads:read`; API tokens may lack it. A
// hidden payload keeps its place in the DTO, replaced by one marker that a person and a program
// can both recognize, and the DTO carrying it says `payloadsHidden: true`.
import { can, type Viewer } from "../../domain/access";
import type { JsonValue } from "../../domain/json";

export const HIDDEN_PAYLOAD = "[hidden: needs payloads:read]";

/** Whether `viewer` sees payloads; pass the answer to `payload` for each payload field. */
export function seesPayloads(viewer: Viewer): boolean {
  return can(viewer, "payloads:read");
}

/** The value, or the marker in its place. An absent value (null) stays null: absence is no payload. */
export function payload(visible: boolean, value: JsonValue): JsonValue {
  return visible || value === null ? value : HIDDEN_PAYLOAD;
}
