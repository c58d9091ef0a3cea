// What the workers run against: a throwaway migrated database, and the demo receivers as a
// process of their own, so killing workers never kills the services that count deliveries.

import type { WriteStream } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { connectClient } from "../../db/client";
import { readPostmasterPid } from "../../db/embedded";
import {
  createTestDatabaseFrom,
  dropTestDatabase,
  startTestCluster,
  type TestDatabaseUrls,
} from "../../db/testing/cluster";
import { childEnv, env } from "../../lib/env";
import { refundSchema } from "../../worker/demo/payments-schemas";
import { receivedMessageSchema } from "../../worker/demo/smtp-schemas";
import { type Child, spawnNode, stopChild, type Watchdog } from "./processes";

export type Database = { urls: TestDatabaseUrls; stop: () => Promise<void> };

/** A throwaway cluster (or TEST_DATABASE_URL's server) holding one fresh migrated database. */
export async function startDatabase(watchdog: Watchdog): Promise<Database> {
  const external = env().TEST_DATABASE_URL;
  const { cluster, stop } = await startTestCluster(external);
  if (external) {
    watchdog.send({ database: { superUrl: cluster.superUrl, name: cluster.template } });
  } else {
    // startTestCluster keeps the postmaster to itself; the watchdog needs its pid and folder.
    const client = await connectClient(cluster.superUrl);
    const { rows } = await client
      .query<{ data_directory: string }>("show data_directory")
      .finally(() => client.end());
    const pgData = rows[0]?.data_directory;
    const postmaster = pgData ? readPostmasterPid(pgData) : undefined;
    if (pgData && postmaster) {
      watchdog.send({ postmaster: postmaster.pid, dir: path.dirname(pgData) });
    }
  }
  let urls: TestDatabaseUrls;
  try {
    urls = await createTestDatabaseFrom(cluster, "chaos");
  } catch (err) {
    await stop();
    throw err;
  }
  if (external) watchdog.send({ database: { superUrl: cluster.superUrl, name: urls.name } });
  return {
    urls,
    stop: async () => {
      await dropTestDatabase(cluster, urls.name).catch(() => undefined);
      await stop();
      watchdog.send({ forgetCluster: true });
    },
  };
}

const readySchema = z.object({
  paymentsUrl: z.string().url(),
  smtpUrl: z.string(),
  smtpControlUrl: z.string().url(),
});

export type Receivers = z.infer<typeof readySchema> & {
  child: Child;
  stop: () => Promise<void>;
};

/** `worker/demo/main.ts` on free ports; resolves once it printed its ready line. */
export async function startReceivers(watchdog: Watchdog, log: WriteStream): Promise<Receivers> {
  let onReady: (line: string) => void = () => {};
  const ready = new Promise<string>((resolve) => {
    onReady = resolve;
  });
  const child = spawnNode({
    args: [
      "worker/demo/main.ts",
      "--payments-port",
      "0",
      "--smtp-port",
      "0",
      "--control-port",
      "0",
    ],
    env: childEnv({}),
    watchdog,
    log,
    label: "[receivers]",
    onLine: (line) => {
      if (line.startsWith("{")) onReady(line);
    },
  });
  const line = await Promise.race([
    ready,
    child.exited.then((exit) => {
      throw new Error(
        `the demo receivers exited (${exit.signal ?? exit.code}) before they were ready:\n${child.tail().join("\n")}`,
      );
    }),
  ]);
  const urls = readySchema.parse(JSON.parse(line));
  return {
    ...urls,
    child,
    stop: async () => {
      await stopChild(child, "SIGTERM", 5_000);
    },
  };
}

async function control<T>(url: string, schema: z.ZodType<T>): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return schema.parse(await res.json());
}

export async function receivedMessages(receivers: Receivers) {
  const body = await control(
    `${receivers.smtpControlUrl}/__control/messages`,
    z.object({ messages: z.array(receivedMessageSchema) }),
  );
  return body.messages;
}

export async function createdRefunds(receivers: Receivers) {
  const body = await control(
    `${receivers.paymentsUrl}/__control/refunds`,
    z.object({ refunds: z.array(refundSchema) }),
  );
  return body.refunds;
}
