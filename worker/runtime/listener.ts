// The worker's LISTEN connection: a client of its own (not a pooled one), with an error handler,
// that reconnects with capped, jittered backoff and listens again. While it is down the worker
// polls; once it is back the worker is woken once, for the notifications it may have missed.
import pg from "pg";
import { type Backoff, backoffDelay } from "../../db/retry";
import { errorFields, type Logger } from "../../lib/log";

export type Listener = {
  /** Resolves once the first LISTEN is in place (or the first try failed: polling covers it). */
  ready: Promise<void>;
  connected: () => boolean;
  stop: () => Promise<void>;
};

export function startListener(opts: {
  clientConfig: pg.ClientConfig;
  /** What each channel listened on does with a notification's payload. */
  channels: Record<string, (payload: string) => void>;
  /** After a reconnect: notifications sent while it was down are gone. */
  onReconnect: () => void;
  log: Logger;
  backoff?: Backoff;
}): Listener {
  const backoff = opts.backoff ?? { initialMs: 100, maxMs: 5_000 };
  const channels = Object.keys(opts.channels);
  let stopped = false;
  let current: pg.Client | undefined;
  // The client being connected or listening, so stop() can end a connect that hangs.
  let live: pg.Client | undefined;
  let interrupt: () => void = () => {};
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => {
    markReady = r;
  });

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      interrupt = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = (async () => {
    let failures = 0;
    let everListened = false;
    while (!stopped) {
      const client = new pg.Client(opts.clientConfig);
      live = client;
      const lost = new Promise<unknown>((resolve) => {
        client.on("error", resolve);
        client.on("end", () => resolve(new Error("the LISTEN connection ended")));
        interrupt = () => resolve(undefined);
      });
      client.on("notification", (n) => opts.channels[n.channel]?.(n.payload ?? ""));
      let why: unknown;
      try {
        await client.connect();
        for (const channel of channels) await client.query(`listen ${channel}`);
        current = client;
        markReady();
        if (everListened) {
          opts.log.info({ afterTries: failures }, "LISTEN connection is back; listening again");
          opts.onReconnect();
        }
        everListened = true;
        failures = 0;
        why = await lost;
      } catch (err) {
        why = err;
      }
      current = undefined;
      live = undefined;
      await client.end().catch(() => undefined);
      markReady();
      if (stopped) break;
      const delay = backoffDelay(failures, backoff);
      // The first loss is news; the retries after it are not, until it comes back.
      const level = failures === 0 ? "warn" : "debug";
      opts.log[level](
        { ...errorFields(why), retryInMs: delay, tries: failures + 1 },
        "LISTEN connection lost; polling until it is back",
      );
      failures++;
      await pause(delay);
    }
  })();

  return {
    ready,
    connected: () => current !== undefined,
    stop: async () => {
      stopped = true;
      const client = current;
      if (client) await client.query("unlisten *").catch(() => undefined);
      interrupt();
      await live?.end().catch(() => undefined);
      await loop;
    },
  };
}
