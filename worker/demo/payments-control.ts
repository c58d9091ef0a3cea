// The demo payments service's fault control (control-api.ts) as another process uses it:
// `agent-ledger demo outage` adds its scoped outages with it and takes them away again, leaving
// every other fault as it found it.
import { z } from "zod";
import { CONTROL_PREFIX } from "./control-api";
import { type PaymentsFaults, type PaymentsOutage, paymentsFaultsSchema } from "./payments-schemas";

/** The service could not be reached, or what answered is not the demo payments service. */
export class PaymentsControlError extends Error {
  override name = "PaymentsControlError";
}

const answerSchema = z.object({ faults: paymentsFaultsSchema });

function reason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

async function control(paymentsUrl: string, init?: RequestInit): Promise<PaymentsFaults> {
  const target = new URL(`${CONTROL_PREFIX}faults`, paymentsUrl);
  const request = `${init?.method ?? "GET"} ${target.pathname}`;
  let res: Response;
  try {
    res = await fetch(target, { ...init, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    throw new PaymentsControlError(
      `the demo payments service does not answer at ${paymentsUrl} (${reason(err)})`,
    );
  }
  const body: unknown = await res.json().catch(() => null);
  const parsed = answerSchema.safeParse(body);
  if (!res.ok || !parsed.success) {
    const said = z.object({ error: z.string() }).safeParse(body).data?.error;
    throw new PaymentsControlError(
      `${paymentsUrl} is not the demo payments service, or refused: ${request} answered ${res.status}${said ? ` (${said})` : ""}`,
    );
  }
  return parsed.data.faults;
}

export function readPaymentsFaults(paymentsUrl: string): Promise<PaymentsFaults> {
  return control(paymentsUrl);
}

export function writePaymentsFaults(
  paymentsUrl: string,
  faults: PaymentsFaults,
): Promise<PaymentsFaults> {
  return control(paymentsUrl, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(faults),
  });
}

/** Adds `outages` to the faults in force (read just before), every other fault unchanged. */
export async function addOutages(
  paymentsUrl: string,
  outages: readonly PaymentsOutage[],
): Promise<PaymentsFaults> {
  const current = await readPaymentsFaults(paymentsUrl);
  return writePaymentsFaults(paymentsUrl, {
    ...current,
    outages: [...(current.outages ?? []), ...outages],
  });
}

/** Takes away the outages with these prefixes (another run's stay), every other fault unchanged. */
export async function removeOutages(
  paymentsUrl: string,
  prefixes: readonly string[],
): Promise<PaymentsFaults> {
  const { outages = [], ...rest } = await readPaymentsFaults(paymentsUrl);
  const kept = outages.filter((o) => !prefixes.includes(o.paymentIntentPrefix));
  return writePaymentsFaults(paymentsUrl, kept.length > 0 ? { ...rest, outages: kept } : rest);
}
