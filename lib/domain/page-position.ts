// A keyset page position as lists put it in the address: the last row's time, to the
// microsecond, and its id ("2026-12-02T12:43:45.803320Z_<uuid>"). A position the list did not
// write is refused with `refusal`, which tells the visitor where the list's own links are.
import { z } from "zod";

const POSITION = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)_([0-9a-f-]{36})$/;

export function pagePositionSchema(refusal: string) {
  return z.string().transform((value, ctx) => {
    const [, at, id] = POSITION.exec(value) ?? [];
    if (at === undefined || id === undefined || Number.isNaN(Date.parse(at))) {
      ctx.addIssue({ code: "custom", message: refusal });
      return z.NEVER;
    }
    return { at, id };
  });
}
