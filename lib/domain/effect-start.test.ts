import { describe, expect, it } from "vitest";
import { effectStartData, effectStartOf } from "./effect-start";

const at = new Date("2026-12-07T08:00:01.000Z");
const fingerprint = "f".repeat(64);

describe("effectStartOf", () => {
  it("reads an effect.started entry (older ledgers), dated by the entry", () => {
    expect(
      effectStartOf({
        kind: "effect.started",
        at,
        actor: "worker:w1",
        data: { tool: "send_email", args: { to: "a@b" }, fingerprint, retry: true },
      }),
    ).toEqual({
      at: "2026-12-07T08:00:01.000Z",
      args: { to: "a@b" },
      fingerprint,
      retry: true,
      resend: false,
      lapsed: false,
      actor: "worker:w1",
    });
  });

  it("reads a claim carried by the entry that ended it, dated by the claim", () => {
    const data = {
      result: { ok: true },
      effectStarted: effectStartData({
        at: "2026-12-07T07:59:59.500Z",
        args: { to: "a@b" },
        fingerprint,
        after: "resend",
      }),
    };
    expect(data.effectStarted).toEqual({
      at: "2026-12-07T07:59:59.500Z",
      args: { to: "a@b" },
      fingerprint,
      resend: true,
    });
    expect(effectStartOf({ kind: "effect.succeeded", at, actor: "worker:w2", data })).toEqual({
      at: "2026-12-07T07:59:59.500Z",
      args: { to: "a@b" },
      fingerprint,
      retry: false,
      resend: true,
      lapsed: false,
      actor: "worker:w2",
    });
  });

  it("names a lapsed claim's dead worker, not the finder", () => {
    const data = {
      action: "resend",
      effectStarted: effectStartData({
        at,
        args: {},
        fingerprint,
        lapsed: { actor: "worker:dead" },
      }),
    };
    expect(
      effectStartOf({ kind: "effect.outcome_unknown", at: new Date(), actor: "worker:w3", data }),
    ).toMatchObject({ lapsed: true, actor: "worker:dead", at: "2026-12-07T08:00:01.000Z" });
  });

  it("finds none on other entries", () => {
    expect(effectStartOf({ kind: "effect.succeeded", at, data: { result: 1 } })).toBeNull();
    expect(effectStartOf({ kind: "task.enqueued", at, data: null })).toBeNull();
  });
});
