// Structured logs for the web server, the worker and the CLI's long-running commands: one JSON
// object per line on stdout (pretty on a terminal), level from LOG_LEVEL. Context travels as
// child loggers: `logger("worker").child({ worker, task, attempt })`, `{ request }` on the web.
import pino from "pino";
import pretty from "pino-pretty";
import { env } from "./env";

export type Logger = pino.Logger;

const holder = globalThis as typeof globalThis & { __agentLedgerLog?: Logger };

function root(): Logger {
  if (!holder.__agentLedgerLog) {
    const level = env().LOG_LEVEL;
    const options: pino.LoggerOptions = {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Secrets that may sit in an error or a request we log.
      redact: {
        paths: ["authorization", "cookie", "password", "*.authorization", "*.cookie", "*.password"],
        censor: "[redacted]",
      },
    };
    holder.__agentLedgerLog = process.stdout.isTTY
      ? pino(options, pretty({ sync: true, colorize: true, ignore: "pid,hostname" }))
      : pino(options, pino.destination({ dest: 1, sync: true }));
  }
  return holder.__agentLedgerLog;
}

/** A logger for one component ("web", "worker", "launcher", "db", …). */
export function logger(component: string, bindings: Record<string, unknown> = {}): Logger {
  return root().child({ component, ...bindings });
}

/** An error as log fields: message, code (pg's SQLSTATE, Node's errno name) and stack. */
export function errorFields(error: unknown): {
  err: { message: string; code?: string; stack?: string };
} {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      err: {
        message: error.message,
        ...(typeof code === "string" ? { code } : {}),
        ...(error.stack ? { stack: error.stack } : {}),
      },
    };
  }
  return { err: { message: String(error) } };
}
