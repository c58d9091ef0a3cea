// agent-ledger events send: wake the tasks waiting for an event (ctx.waitForEvent) from a shell
// or a script; with --key, running the same command twice sends one event.
import { z } from "zod";
import { eventNameSchema, eventPayloadSchema } from "../../lib/domain/events";
import { env } from "../../lib/env";
import { sendEvent } from "../../lib/server/commands/send-event";
import { cliPrincipal, failure, withAppDatabase } from "./operator";
import {
  commandGroup,
  EXIT,
  helpOption,
  jsonOption,
  parseOption,
  parseOptions,
  printJson,
  readAll,
  UsageError,
} from "./shared";

const keySchema = z
  .string()
  .min(1, { error: "must not be empty" })
  .max(255, { error: "must be at most 255 characters" });

async function readPayload(value: string | undefined): Promise<unknown> {
  if (value === undefined) return {};
  const text = value === "-" ? await readAll(process.stdin) : value;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--payload: is not JSON: ${(err as Error).message}`);
  }
}

async function send(argv: string[]): Promise<number> {
  const opts = parseOptions(argv, {
    ...helpOption,
    ...jsonOption,
    name: { type: "string" },
    payload: { type: "string" },
    key: { type: "string" },
  });
  if (opts.name === undefined) throw new UsageError("--name: is required");
  const name = parseOption(eventNameSchema, opts.name, "--name");
  const payload = parseOption(eventPayloadSchema, await readPayload(opts.payload), "--payload");
  const key = opts.key === undefined ? undefined : parseOption(keySchema, opts.key, "--key");
  return withAppDatabase("events", async (pool) => {
    const result = await sendEvent(pool, cliPrincipal(), {
      name,
      payload,
      key,
      keepMs: env().EVENT_KEEP_MS,
    });
    if (!result.ok) return failure("events send", result);
    const sent = result.value;
    if (opts.json) printJson(sent);
    else {
      const reached =
        sent.deliveredTo.length === 0
          ? "no task was waiting for it (it is kept for waits that start later)"
          : `delivered to ${sent.deliveredTo.length} task(s): ${sent.deliveredTo.join(", ")}`;
      console.log(
        `${sent.created ? "Sent" : "Already sent under this key:"} event ${sent.event.id}; ${reached}.`,
      );
    }
    return EXIT.ok;
  });
}

export const eventsCommand = commandGroup({
  name: "events",
  summary: "Send an event to the tasks waiting for it (idempotent with --key)",
  notes: `The event is recorded as event.received (actor "cli:<os user>") and kept for
EVENT_KEEP_MS (24 h) for tasks that start waiting later.

Exit codes: 0 sent (or the key's event already existed), 1 refused (the key was used for
another event), 2 could not run (bad options, payload not a JSON object, no database).`,
  subcommands: [
    {
      name: "send",
      synopsis: "--name N [--payload JSON|-] [--key K] [--json]",
      description: `Sends event N with the payload (a JSON object, inline or - for standard input;
default {}). Every task waiting for N whose match the payload contains continues with it.
With --key, sending again prints the first event and delivers nothing new; the same key with
another name or payload is refused. --json prints {"event", "deliveredTo", "created"}.`,
      run: send,
    },
  ],
});
