// What a build ships of the migrations: the SQL and drizzle's journal, which migrate and the
// schema check read; the schema snapshots (3 MB) are drizzle-kit's only. One copy for the
// package's dist/migrations (tsup runs `node --import tsx scripts/ship-migrations.ts DIR`) and
// the built dashboard's migrations/.
import { cpSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export function shipMigrations(root: string, to: string): void {
  cpSync(path.join(root, "db", "migrations"), to, {
    recursive: true,
    filter: (src) => !src.endsWith("_snapshot.json"),
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const to = process.argv[2];
  if (!to) throw new Error("usage: scripts/ship-migrations.ts DIR");
  shipMigrations(fileURLToPath(new URL("..", import.meta.url)), to);
}
