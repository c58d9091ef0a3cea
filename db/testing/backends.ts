// For tests of the counters kept per backend (ledger_kind_counts, status_counts): a write from
// a connection of its own, whose backend pid the test then looks for in the counter rows.
import pg from "pg";

async function onOwnConnection(
  url: string,
  write: (client: pg.Client) => Promise<unknown>,
): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
    await write(client);
    return rows[0]?.pid ?? -1;
  } finally {
    await client.end();
  }
}

/** `write` from a new backend, which the server has forgotten (pg_stat_activity) on return. */
export async function writeFromGoneBackend(
  pool: pg.Pool,
  url: string,
  write: (client: pg.Client) => Promise<unknown>,
): Promise<number> {
  const pid = await onOwnConnection(url, write);
  for (let i = 0; i < 100; i++) {
    const { rows } = await pool.query("select 1 from pg_stat_activity where pid = $1", [pid]);
    if (rows.length === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return pid;
}

/** `write` from a new backend; its pid. */
export const writeFromNewBackend = onOwnConnection;
