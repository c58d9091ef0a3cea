// A server action called the way React sends a <form>: a multipart body whose field "0" is the
// argument list, with "$K1" standing for a FormData made of the fields named "1_<name>". The
// answer is read with e2e/authz/calls.ts's Flight reader.
import { type ActionEndpoint, parseFlight, resolveFlight } from "../authz/calls";
import { BASE_URL, type Credentials } from "../authz/principals";

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
    const rows = parseFlight(raw);
    const root = rows.get("0");
    if (!root || !("json" in root)) throw new Error("no root row");
    value = resolveFlight((root.json as { a?: unknown }).a, rows);
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
