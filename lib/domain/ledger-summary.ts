// One line on what a ledger entry says, for the /ledger rows and the CSV export: the fields a
// person scans for, per kind (the tool and recipient or provider ids of an effect, who decided
// a review and why, the agent and status of a task). Plain text; the screen renders it escaped.
import type { JsonValue } from "./json";

type Obj = { [key: string]: JsonValue };

const isObj = (v: JsonValue | undefined): v is Obj =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Long enough for a whole Message-ID (<64 hex digits@domain>): ids are what people search for. */
function text(v: JsonValue | undefined, max = 160): string | null {
  if (v === undefined || v === null) return null;
  const s = typeof v === "string" ? v : JSON.stringify(v);
  const line = s.replace(/\s+/g, " ").trim();
  if (line === "") return null;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** "name: value" for each field that has a value, joined by " · ". */
function fields(pairs: [string, JsonValue | undefined][]): string {
  return pairs
    .map(([name, v]) => {
      const t = text(v);
      return t === null ? null : name === "" ? t : `${name}: ${t}`;
    })
    .filter((p): p is string => p !== null)
    .join(" · ");
}

const actorName = (actor: string) => actor.replace(/^user:/, "");

/** Recipients, provider ids and other identifying values of an effect's args/intent/result. */
function effectIds(d: Obj): [string, JsonValue | undefined][] {
  const args = isObj(d.args) ? d.args : {};
  const result = isObj(d.result) ? d.result : {};
  return [
    ["to", args.to ?? result.to],
    ["Message-ID", result.messageId],
    ["refund", result.refundId],
    ["order", args.orderId],
    ["invoice", args.invoiceId],
    ["amount", args.amount],
  ];
}

export function summarizeEntry(entry: {
  kind: string;
  actor: string;
  data: JsonValue | null;
}): string {
  const { kind } = entry;
  if (!isObj(entry.data)) {
    // Hidden payloads are a marker string; a primitive data is shown as it is.
    return text(entry.data, 120) ?? "";
  }
  const d = entry.data;
  const [family] = kind.split(".");
  switch (family) {
    case "effect":
      return fields([
        ["", d.tool],
        ...effectIds(d),
        ["performed", d.performed],
        ["error", isObj(d.error) ? d.error.message : d.error],
        ["step", d.step],
        ["attempt", d.attempt],
      ]);
    case "review":
      return fields([
        ["by", actorName(entry.actor)],
        ["action", d.action],
        ["from", d.from],
        ["why", d.reason ?? d.why ?? d.note],
        ["step", d.fromStep],
        ["request", d.requestId],
      ]);
    case "task":
      return fields([
        ["agent", d.agent],
        ["from", d.from],
        ["status", d.status ?? d.to],
        ["reason", d.reason],
        ["why", d.why],
        ["error", isObj(d.error) ? d.error.message : d.error],
      ]);
    case "attempt":
    case "retry":
      return fields([
        ["attempt", d.attempt],
        ["agent", d.agent],
        ["error", isObj(d.error) ? d.error.message : d.error],
        ["runs at", d.runAt],
      ]);
    case "step":
      return fields([
        ["step", d.step],
        ["", d.kind],
        ["", d.name],
      ]);
    case "model":
      return fields([
        ["model", d.model],
        ["step", d.step],
        ["cost", d.costUsd ?? d.cost],
      ]);
    case "outcome":
      return fields([
        ["by", actorName(entry.actor)],
        ["happened", d.happened],
        ["result", d.result],
      ]);
    case "policy":
      return fields([
        ["by", actorName(entry.actor)],
        ["scope", d.scope],
      ]);
    case "replay":
      return fields([
        ["by", actorName(entry.actor)],
        ["from step", d.fromStep],
      ]);
    case "ledger":
      return ledgerSummary(kind, d);
    default:
      // Any other kind: its first few scalar fields.
      return fields(
        Object.entries(d)
          .filter(([, v]) => v === null || typeof v !== "object")
          .slice(0, 4),
      );
  }
}

/** Checkpoints: what they cover, never their lists of heads. */
function ledgerSummary(kind: string, d: Obj): string {
  if (kind === "ledger.checkpoint_heads") {
    return `heads of streams ${text(d.first, 60) ?? "?"} … ${text(d.last, 60) ?? "?"} (${text(d.count) ?? "?"})`;
  }
  if (kind === "ledger.checkpoint") {
    const st = isObj(d.statement) ? d.statement : {};
    const streams = st.streams ?? (Array.isArray(d.streams) ? d.streams.length : undefined);
    return fields([
      ["streams", streams],
      ["chunks", Array.isArray(d.chunks) ? d.chunks.length : undefined],
      ["", d.signature === undefined ? "unsigned" : "signed"],
      ["digest", typeof d.digest === "string" ? `${d.digest.slice(0, 12)}…` : undefined],
    ]);
  }
  return fields(
    Object.entries(d)
      .filter(([, v]) => v === null || typeof v !== "object")
      .slice(0, 4),
  );
}
