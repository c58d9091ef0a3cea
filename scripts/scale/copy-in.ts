// COPY … FROM STDIN for the scale loader, through pg's submittable interface (what
// pg-copy-streams does, without the dependency). COPY parses plain tab-separated text: no
// array literals to build and escape in Node, no unnest to unpack in PostgreSQL, which is most
// of what an INSERT of ten million rows costs on both sides.
import type pg from "pg";

/** A value of a COPY text-format row: null is \N, everything else its text. */
export type CopyValue = string | number | null;

type Connection = {
  query: (text: string) => void;
  sendCopyFromChunk: (chunk: Buffer) => void;
  endCopyFrom: () => void;
};

const SPECIAL = /[\\\t\n\r]/;
function field(v: CopyValue): string {
  if (v === null) return "\\N";
  const s = typeof v === "number" ? String(v) : v;
  if (!SPECIAL.test(s)) return s;
  return s.replace(/[\\\t\n\r]/g, (c) =>
    c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r",
  );
}

/** Rows as COPY text, cut into chunks of about 1 MB (one CopyData message each). */
function chunksOf(rows: readonly (readonly CopyValue[])[]): Buffer[] {
  const chunks: Buffer[] = [];
  let part: string[] = [];
  let size = 0;
  for (const row of rows) {
    const line = `${row.map(field).join("\t")}\n`;
    part.push(line);
    size += line.length;
    if (size >= 1 << 20) {
      chunks.push(Buffer.from(part.join(""), "utf8"));
      part = [];
      size = 0;
    }
  }
  if (part.length > 0) chunks.push(Buffer.from(part.join(""), "utf8"));
  return chunks;
}

class CopyIn {
  callback: ((err: Error | null) => void) | undefined;
  private done = false;
  constructor(
    readonly text: string,
    private readonly chunks: Buffer[],
  ) {}
  private finish(err: Error | null) {
    if (this.done) return;
    this.done = true;
    this.callback?.(err);
  }
  submit(connection: Connection) {
    connection.query(this.text);
  }
  handleCopyInResponse(connection: Connection) {
    for (const chunk of this.chunks) connection.sendCopyFromChunk(chunk);
    connection.endCopyFrom();
  }
  handleCommandComplete() {}
  handleReadyForQuery() {
    this.finish(null);
  }
  handleError(err: Error) {
    this.finish(err);
  }
  handleRowDescription() {}
  handleDataRow() {}
  handleEmptyQuery() {}
  handlePortalSuspended() {}
  handleCopyData() {}
}

/** `copy <table> (<columns>) from stdin` with `rows`, on this client (inside its transaction). */
export function copyRows(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly CopyValue[])[],
): Promise<void> {
  if (rows.length === 0) return Promise.resolve();
  const copy = new CopyIn(`copy ${table} (${columns.join(", ")}) from stdin`, chunksOf(rows));
  return new Promise((resolve, reject) => {
    copy.callback = (err) => (err ? reject(err) : resolve());
    // pg hands a submittable the connection; its typings know only Query configs.
    (client.query as unknown as (q: CopyIn) => void)(copy);
  });
}
