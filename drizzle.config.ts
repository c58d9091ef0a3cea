// drizzle-kit generates migrations from db/schema; it never pushes to a database.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
  strict: true,
  verbose: true,
});
