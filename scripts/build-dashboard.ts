// Turns `next build`'s standalone output into the dashboard a team runs with plain `node`, no
// tsx and no source tree: dist/dashboard/ holds server.js (web/server.ts with our server
// code bundled by esbuild; packages stay imports), .next (the server build and static assets),
// public when there is one, and node_modules (what Next traced for its pages plus what
// server.js imports, traced the same way). Start: `node dist/dashboard/server.js`, or
// `agent-ledger dashboard`. `npm run build` runs `next build` and then this.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import nft from "next/dist/compiled/@vercel/nft";
import { DASHBOARD_DIR, DASHBOARD_SERVER } from "./launch/dashboard-paths";
import { shipMigrations } from "./ship-migrations";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Packages Next's own trace brings into the standalone folder. */
const NEXT_OWN = [
  "node_modules/next/",
  "node_modules/@next/",
  "node_modules/react/",
  "node_modules/react-dom/",
  "node_modules/styled-jsx/",
  "node_modules/@swc/helpers/",
];

/** server.js is an ES module; `npm start` inside the folder runs it. */
const DASHBOARD_PACKAGE = {
  name: "agent-ledger-dashboard",
  private: true,
  type: "module",
  scripts: { start: "node server.js" },
};

function copyDir(from: string, to: string): void {
  // Symlinks Next made inside its standalone node_modules stay links, relative as Next wrote them.
  cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

/**
 * Replaces every symlink under `dir` with a copy of what it points to. `npm pack` leaves
 * symlinks out of a tarball, and Turbopack reaches each external package (pg, pino, pino-pretty)
 * through one: .next/node_modules/pg-<hash> -> ../../node_modules/pg. Copied, such a package
 * resolves its own dependencies from the node_modules above it, the same as through the link;
 * Next's chunks then load their own instance of it, as two bundles of one package would.
 */
function materializeSymlinks(dir: string): number {
  let replaced = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) {
      const target = realpathSync(full);
      rmSync(full);
      cpSync(target, full, { recursive: true });
      replaced += 1;
      if (statSync(full).isDirectory()) replaced += materializeSymlinks(full);
    } else if (entry.isDirectory()) {
      replaced += materializeSymlinks(full);
    }
  }
  return replaced;
}

/** Copies each traced file under node_modules that the standalone folder does not hold yet. */
function copyTraced(root: string, out: string, files: Iterable<string>): number {
  let copied = 0;
  for (const file of files) {
    if (!file.startsWith("node_modules/")) continue;
    const target = path.join(out, file);
    if (existsSync(target)) continue;
    const source = path.join(root, file);
    if (statSync(source).isDirectory()) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(source, target, { verbatimSymlinks: true });
    copied += 1;
  }
  return copied;
}

export async function buildDashboard(root = ROOT): Promise<{ out: string; ms: number }> {
  const started = Date.now();
  const standalone = path.join(root, ".next", "standalone");
  if (!existsSync(path.join(standalone, ".next", "BUILD_ID"))) {
    throw new Error(
      `no standalone Next build in ${standalone}: run \`next build\` first (next.config.ts sets output: "standalone")`,
    );
  }
  const out = path.join(root, DASHBOARD_DIR);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const server = path.join(root, DASHBOARD_SERVER);
  await build({
    entryPoints: [path.join(root, "web", "server.ts")],
    outfile: server,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Packages are imported from the node_modules beside server.js, as Next's own server does.
    packages: "external",
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "warning",
    legalComments: "none",
  });
  // The version is the package's: the schema check names it when it refuses a database.
  const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  writeFileSync(
    path.join(out, "package.json"),
    `${JSON.stringify({ ...DASHBOARD_PACKAGE, version }, null, 2)}\n`,
  );
  // The schema check compares the database with the migrations this build ships, found beside
  // server.js as db/migrate.ts finds them beside itself.
  shipMigrations(root, path.join(out, "migrations"));

  // What server.js itself imports (pg, pino, pino-pretty, next's custom-server entry, …): traced
  // like Next traces its pages, from this checkout's node_modules (so before the folder has a
  // node_modules of its own, which the trace would otherwise resolve into).
  // Next itself is left to Next's trace: the standalone folder holds what its server needs, and
  // following `next` from here would take in its compilers and dev server (about 100 MB).
  const { fileList } = await nft.nodeFileTrace([server], {
    base: root,
    processCwd: root,
    ignore: (file) => NEXT_OWN.some((prefix) => file.startsWith(prefix)),
  });
  copyDir(path.join(standalone, ".next"), path.join(out, ".next"));
  copyDir(path.join(standalone, "node_modules"), path.join(out, "node_modules"));
  // Next leaves the browser assets and public/ out of standalone: a CDN may serve them.
  copyDir(path.join(root, ".next", "static"), path.join(out, ".next", "static"));
  if (existsSync(path.join(root, "public")))
    copyDir(path.join(root, "public"), path.join(out, "public"));

  copyTraced(root, out, fileList);
  materializeSymlinks(out);
  return { out, ms: Date.now() - started };
}

/**
 * What `npm pack` checks (prepack): dist/dashboard holds the checkout's current Next build.
 * The build itself is `npm run build`'s, so a pack never rebuilds a dashboard in use.
 */
export function builtDashboardProblem(root = ROOT): string | null {
  const id = (dir: string) => {
    const file = path.join(dir, ".next", "BUILD_ID");
    return existsSync(file) ? readFileSync(file, "utf8").trim() : null;
  };
  const built = id(path.join(root, DASHBOARD_DIR));
  if (!built || !existsSync(path.join(root, DASHBOARD_SERVER))) {
    return "dist/dashboard is missing: run `npm run build` before `npm pack`";
  }
  const current = id(path.join(root));
  if (current !== built) {
    return `dist/dashboard holds build ${built}, .next holds ${current}: run \`npm run build\` again`;
  }
  return null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes("--check")) {
    const problem = builtDashboardProblem();
    if (problem) {
      console.error(`build-dashboard: ${problem}`);
      process.exit(1);
    }
    process.exit(0);
  }
  buildDashboard().then(
    ({ out, ms }) => console.log(`Built the dashboard into ${out} in ${(ms / 1000).toFixed(1)} s.`),
    (error: unknown) => {
      console.error(`build-dashboard: ${(error as Error).message}`);
      process.exitCode = 1;
    },
  );
}
