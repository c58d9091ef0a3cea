import { describe, expect, it } from "vitest";
import type { JsonValue } from "./json";
import { REDACTED, redact } from "./redact";

describe("redact", () => {
  it("replaces values at dotted paths, with * for any key or index", () => {
    const value: JsonValue = {
      args: { to: "a@b.c", card: { number: "4242", exp: "12/30" } },
      items: [{ secret: "s1", keep: 1 }, { secret: "s2" }],
    };
    expect(redact(value, ["args.card.number", "items.*.secret", "nope.deeper"])).toEqual({
      args: { to: "a@b.c", card: { number: REDACTED, exp: "12/30" } },
      items: [{ secret: REDACTED, keep: 1 }, { secret: REDACTED }],
    });
  });

  it("leaves the input untouched", () => {
    const value = { a: { b: "secret" } };
    redact(value, ["a.b"]);
    expect(value.a.b).toBe("secret");
  });
});
