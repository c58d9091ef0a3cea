// A server action called the way React sends a <form>: a multipart body whose field "0" is the
// argument list, with "$K1" standing for a FormData made of the fields named "1_<name>". The
// answer is read like e2e/authz/calls.ts reads it (that module keeps its Flight reader private).
import type { ActionEndpoint } from "../authz/calls";
import { BASE_URL, type Credentials } from "../authz/principals";

type Row = { json: unknown } | { tag: string; text: string };

/** React Flight rows by id: JSON rows, and length-prefixed text rows ("T"). */
function rowsOf(body: Buffer): Map<string, Row> {
  const rows = new Map<string, Row>();
  let pos = 0;
  while (pos < body.length) {
    const colon = body.indexOf(0x3a, pos);
    if (colon < 0) break;
    const id = body.subarray(pos, colon).toString("utf8");
    pos = colon + 1;
    if (body[pos] === 0x54) {
      const comma = body.indexOf(0x2c, pos);
      const length = Number.parseInt(body.subarray(pos + 1, comma).toString("utf8"), 16);
      rows.set(id, { tag: "T", text: body.subarray(comma + 1, comma + 1 + length).toString() });
      pos = comma + 1 + length;
      continue;
    }
    let end = body.indexOf(0x0a, pos);
    if (end < 0) end = body.length;
    const line = body.subarray(pos, end).toString("utf8");
    pos = end + 1;
    const tag = /^[A-Z]+/.exec(line)?.[0];
    rows.set(id, tag ? { tag, text: line.slice(tag.length) } : { json: JSON.parse(line) });
  }
  return rows;
}

function resolve(value: unknown, rows: Map<string, Row>, depth = 0): unknown {
  if (depth > 50) throw new Error("flight references nest too deep");
  if (typeof value === "string" && value.startsWith("$")) {
    if (value.startsWith("$$")) return value.slice(1);
    const ref = /^\$@?([0-9a-f]+)$/.exec(value)?.[1];
    if (ref === undefined) return value === "$undefined" ? undefined : value;
    const row = rows.get(ref);
    if (!row) throw new Error(`flight row ${ref} is missing`);
    if ("json" in row) return resolve(row.json, rows, depth + 1);
    if (row.tag === "T") return row.text;
    throw new Error(`the action threw (${row.tag}${row.text.slice(0, 200)})`);
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, rows, depth + 1));
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, resolve(v, rows, depth + 1)]),
    );
  }
  return value;
}

export type FormField = [name: string, value: string | Blob];

/**
 * Posts `fields` as the FormData argument at `position` (earlier arguments undefined) and says
 * what came back, in the words callAction uses: 4xx statuses as "<status>: <error>", "ok",
 * "redirect:<path>", or a description of anything else.
 */
export async function callActionWithForm(
  endpoint: ActionEndpoint,
  pagePath: string,
  position: number,
  fields: FormField[],
  credentials: Credentials,
): Promise<{ outcome: string; detail: string }> {
  const body = new FormData();
  for (const [name, value] of fields) body.append(`1_${name}`, value);
  // React appends the root last, after the parts it refers to.
  body.append("0", JSON.stringify([...Array(position).fill("$undefined"), "$K1"]));
  const response = await fetch(`${BASE_URL}${pagePath}`, {
    method: "POST",
    headers: {
      ...credentials,
      accept: "text/x-component",
      "next-action": endpoint.id,
      origin: BASE_URL,
    },
    body,
    redirect: "manual",
  });
  const raw = Buffer.from(await response.arrayBuffer());
  const detail = raw.toString("utf8").slice(0, 300);
  const redirect = response.headers.get("x-action-redirect");
  if (redirect) {
    return {
      outcome: `redirect:${new URL(redirect.split(";")[0] ?? "", BASE_URL).pathname}`,
      detail,
    };
  }
  if (!response.headers.get("content-type")?.includes("text/x-component")) {
    return { outcome: `HTTP ${response.status} ${response.headers.get("content-type")}`, detail };
  }
  let value: unknown;
  try {
    const root = rowsOf(raw).get("0");
    if (!root || !("json" in root)) throw new Error("no root row");
    value = resolve((root.json as { a?: unknown }).a, rowsOf(raw));
  } catch (error) {
    return { outcome: `HTTP ${response.status}: ${(error as Error).message}`, detail };
  }
  const result = value as { ok?: unknown; status?: unknown; error?: unknown } | null;
  if (result?.ok === true) return { outcome: "ok", detail: JSON.stringify(value).slice(0, 300) };
  if (result?.ok === false && typeof result.status === "number") {
    return { outcome: `${result.status}: ${String(result.error)}`, detail };
  }
  return { outcome: `returned ${JSON.stringify(value)?.slice(0, 300)}`, detail };
}
