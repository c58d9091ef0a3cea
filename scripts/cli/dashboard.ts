// agent-ledger dashboard: runs the built dashboard (dist/dashboard/server.js, plain `node`) against
// the team's own DATABASE_URL, after checking what would otherwise fail later and less clearly:
// the variables, the build, the database. The database modules load only when the command runs,
// so `agent-ledger --help` does not pay for them.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { env } from "../../lib/env";
import { DASHBOARD_SERVER, packageRoot } from "../launch/dashboard-paths";
import { type Command, EXIT, helpOption, parseOption, parseOptions, wholeNumber } from "./shared";

const USAGE = `agent-ledger dashboard [--port N] [--host H] [--migrate]

Runs the web dashboard as a service beside your workers: the built dashboard from this package
(${DASHBOARD_SERVER}), with plain node, against DATABASE_URL. It learns your agents from the
catalog your workers publish; it never loads agent code. Stops on SIGTERM or Ctrl-C.

Options:
  --port N     port to listen on (default PORT, else 3000)
  --host H     interface to bind (default HOST, else 127.0.0.1; 0.0.0.0 to expose it)
  --migrate    apply the database migrations first (as DATABASE_OWNER_URL, else DATABASE_URL);
               without it a database whose schema is behind this version is refused
  -h, --help

Environment (the same as npm run web; docs/configuration.md has every variable):
  DATABASE_URL        required: the application role's PostgreSQL URL
  AUTH_SECRET         required: signs session cookies, 32+ characters (openssl rand -base64 32)
  AUTH_BASE_URL       the URL people open (default http://HOST:PORT); https makes cookies Secure
  DATABASE_OWNER_URL  the schema owner, used only by --migrate
  DATABASE_READ_URL   a read replica for the screens
  OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET   single sign-on
  TRUSTED_PROXIES     reverse proxies whose X-Forwarded-For is believed
  ALERTS_IN_WEB, LOG_LEVEL

Nobody can sign in to an empty database: add the first admin with
  agent-ledger users add --email you@example.com --role admin

Exit codes: 0 stopped by a signal, 2 could not run (a variable missing or bad, no built
dashboard, the database unreachable, its schema refused, the server failed).`;

/** The URL with its password hidden, for messages. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(not a URL)";
  }
}

/** The built dashboard's server.js in the package this command belongs to, if it was built. */
export function builtDashboard(
  from = path.dirname(fileURLToPath(import.meta.url)),
): string | undefined {
  const root = packageRoot(from);
  const server = root && path.join(root, DASHBOARD_SERVER);
  return server && existsSync(server) ? server : undefined;
}

/**
 * In a checkout, whether .next holds another build than the one dist/dashboard was made from
 * (npm start rebuilds .next only): the dashboard would not serve what npm start serves.
 */
function staleNote(server: string): string | undefined {
  const dashboardId = path.join(path.dirname(server), ".next", "BUILD_ID");
  const checkoutId = path.join(server, "..", "..", "..", ".next", "BUILD_ID");
  if (!existsSync(checkoutId) || !existsSync(dashboardId)) return undefined;
  return readFileSync(checkoutId, "utf8") === readFileSync(dashboardId, "utf8")
    ? undefined
    : "note: .next holds another build than dist/dashboard was made from; `npm run build` makes the dashboard from these sources.";
}

/** Whether the database answers; the reason when it does not. */
async function reach(url: string): Promise<string | undefined> {
  const { connectClient } = await import("../../db/client");
  try {
    const client = await connectClient(url, 5_000);
    try {
      await client.query("select 1");
    } finally {
      await client.end();
    }
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  }
}

/** Runs server.js until it exits; a SIGTERM or SIGINT to this process is passed on to it. */
function serve(server: string, extraEnv: Record<string, string>): Promise<number | null> {
  const child = spawn(process.execPath, [server], {
    stdio: "inherit",
    env: { ...process.env, ...extraEnv },
  });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onTerm = forward("SIGTERM");
  const onInt = forward("SIGINT");
  process.on("SIGTERM", onTerm);
  process.on("SIGINT", onInt);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      process.off("SIGTERM", onTerm);
      process.off("SIGINT", onInt);
      resolve(signal ? 0 : code);
    });
  });
}

export const dashboardCommand: Command = {
  name: "dashboard",
  summary: "Run the built web dashboard against DATABASE_URL (a service beside your workers)",
  usage: USAGE,
  run: async (argv) => {
    const opts = parseOptions(argv, {
      ...helpOption,
      port: { type: "string" },
      host: { type: "string" },
      migrate: { type: "boolean" },
    });
    const port =
      opts.port === undefined ? undefined : parseOption(wholeNumber(1, 65535), opts.port, "--port");
    const host =
      opts.host === undefined
        ? undefined
        : parseOption(z.string().trim().min(1, "is empty"), opts.host, "--host");
    const config = env();
    const refuse = (why: string) => {
      console.error(`agent-ledger dashboard: ${why}`);
      return EXIT.error;
    };
    if (!config.DATABASE_URL) {
      return refuse(
        "DATABASE_URL is not set: the dashboard runs against your PostgreSQL (the application role's URL). `agent-ledger dashboard --help` lists what it reads.",
      );
    }
    if (!config.AUTH_SECRET) {
      return refuse(
        "AUTH_SECRET is not set: it signs session cookies (32+ characters; `openssl rand -base64 32` makes one). Keep it the same across restarts and web processes.",
      );
    }
    const server = builtDashboard();
    if (!server) {
      return refuse(
        `no built dashboard (${DASHBOARD_SERVER}) in this package: in a checkout, run \`npm run build\` first.`,
      );
    }
    const stale = staleNote(server);
    if (stale) console.error(`agent-ledger dashboard: ${stale}`);
    const unreachable = await reach(config.DATABASE_URL);
    if (unreachable) {
      return refuse(`cannot reach DATABASE_URL ${shown(config.DATABASE_URL)}: ${unreachable}`);
    }
    if (opts.migrate) {
      const ownerUrl = config.DATABASE_OWNER_URL ?? config.DATABASE_URL;
      const { migrateDatabase } = await import("../../db/migrate");
      const result = await migrateDatabase(ownerUrl);
      console.log(`Applied ${result.applied} migration(s); ${result.total} in total.`);
    }
    // The server checks the schema version itself as it starts, and says why it refuses.
    const code = await serve(server, {
      ...(port === undefined ? {} : { PORT: String(port) }),
      ...(host === undefined ? {} : { HOST: host }),
    });
    if (code === 0) return EXIT.ok;
    return refuse(`the dashboard stopped (exit ${code ?? "unknown"}); its log above says why.`);
  },
};
