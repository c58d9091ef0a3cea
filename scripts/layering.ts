// The folder-to-folder import graph of our own sources, and the layering rules STYLE.md's
// "Layout" states, checked against it. scripts/layering.test.ts runs the check in `npm test`;
// `node --import tsx scripts/layering.ts` prints the same report. A folder is a directory:
// lib/server/commands and lib/server/queries are two folders, and lib/env.ts sits in "lib".
//
// The rules (each violation names the file and the import that breaks it):
// - No cycle between folders: no two folders reach each other through imports (strongly
//   connected components of more than one folder), anywhere in the scanned sources.
// - lib/domain imports nothing of ours outside lib/domain: it is pure, shared by web and worker.
// - db/ imports only db/, lib/domain and lib/env (the schema builds its checks from lib/domain's
//   vocabularies; the pool and the embedded database read configuration through lib/env).
//   db/testing is held to the same rule: it holds database fixtures (clusters, one database per
//   test file) and nothing that stages data through a command; such set-up sits beside the code
//   it stages (STYLE rule 13), so db/ never depends on lib/server.
// - db/ is imported only from the processes and layers that own database access: lib/server,
//   lib/auth (sessions and tokens are rows), worker, scripts, web, db itself, and e2e (the
//   browser tests seed and read the database directly), and entry/ (the package's entry points
//   export `migrate`). web/ is on the list because
//   web/server.ts is a process entry like worker/main.ts: it creates the pool for the alert
//   workers it hosts. Tests (*.test.ts) are not scanned, so they may reach any layer.
// - The one-way arrows between lib's layers: lib/server never imports lib/auth, lib/api or
//   lib/actions; lib/auth never imports lib/api or lib/actions; worker/ never imports
//   lib/api, lib/actions, lib/auth, app or components.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

export const SOURCE_ROOTS = [
  "lib",
  "db",
  "worker",
  "scripts",
  "components",
  "app",
  "web",
  "e2e",
  "examples",
  "bin",
  "entry",
];
const SKIPPED_DIRS = new Set(["node_modules", ".next", "migrations"]);
const SOURCE_FILE = /\.(ts|tsx|mts|mjs)$/;
const TEST_FILE = /\.test\.tsx?$/;
const RESOLVED_EXTENSIONS = [".ts", ".tsx", ".mts", ".mjs", "/index.ts", "/index.tsx"];

/** One import of ours: the importing file, the module it names, and the file that is. */
export type Import = { from: string; specifier: string; to: string };

/** Every source file under the roots (relative, "/"-separated), tests left out. */
export function sourceFiles(root: string, roots = SOURCE_ROOTS): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(rel);
      } else if (SOURCE_FILE.test(entry.name) && !TEST_FILE.test(entry.name)) {
        files.push(rel);
      }
    }
  };
  for (const dir of roots) if (existsSync(path.join(root, dir))) walk(dir);
  // The project's top-level modules (proxy.ts, the configs) are the folder ".".
  for (const entry of readdirSync(root)) {
    if (SOURCE_FILE.test(entry) && !TEST_FILE.test(entry) && !entry.endsWith(".d.ts")) {
      files.push(entry);
    }
  }
  return files.sort();
}

/** The file a relative or "@/" specifier names, or undefined for a package or a missing file. */
export function resolveImport(root: string, from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith("./") || specifier.startsWith("../")) {
    base = path.posix.join(path.posix.dirname(from), specifier);
  } else return undefined;
  base = path.posix.normalize(base);
  const candidates = [base, ...RESOLVED_EXTENSIONS.map((ext) => base + ext)];
  // "./x.js" written for a TypeScript file x.ts.
  if (/\.m?js$/.test(base)) candidates.push(base.replace(/\.(m?)js$/, ".$1ts"));
  return candidates.find((file) => {
    const full = path.join(root, file);
    return existsSync(full) && statSync(full).isFile();
  });
}

/**
 * Every import of ours in the files: static imports (type-only ones too: a type is a
 * dependency), export-from, import() and require(). Specifiers that look like ours but name no
 * file are returned with `to` = "" so the check reports them instead of skipping them.
 */
export function importsOf(root: string, files: string[]): Import[] {
  const out: Import[] = [];
  for (const from of files) {
    const source = readFileSync(path.join(root, from), "utf8");
    const { importedFiles } = ts.preProcessFile(source, true, true);
    for (const { fileName: specifier } of importedFiles) {
      const ours =
        specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("@/");
      if (!ours) continue;
      out.push({ from, specifier, to: resolveImport(root, from, specifier) ?? "" });
    }
  }
  return out;
}

export const folderOf = (file: string): string => path.posix.dirname(file);

/** Folder → the folders it imports from (itself left out), each with the imports that do it. */
export type FolderGraph = Map<string, Map<string, Import[]>>;

export function folderGraph(imports: Import[]): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const imp of imports) {
    if (!imp.to) continue;
    const a = folderOf(imp.from);
    const b = folderOf(imp.to);
    if (!graph.has(b)) graph.set(b, new Map());
    const edges = graph.get(a) ?? new Map<string, Import[]>();
    graph.set(a, edges);
    if (a === b) continue;
    edges.set(b, [...(edges.get(b) ?? []), imp]);
  }
  return graph;
}

/**
 * The strongly connected components with more than one node (Tarjan's algorithm, iterative so
 * a deep graph cannot overflow the stack), each sorted, in a stable order.
 */
export function cycles(graph: ReadonlyMap<string, Iterable<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const successors = (v: string) => [...(graph.get(v) ?? [])];
  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; todo: string[] }[] = [];
    const visit = (node: string) => {
      index.set(node, next);
      low.set(node, next);
      next++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, todo: successors(node) });
    };
    visit(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; todo: string[] };
      const w = frame.todo.shift();
      if (w !== undefined) {
        if (!index.has(w)) visit(w);
        else if (onStack.has(w)) {
          low.set(frame.node, Math.min(low.get(frame.node) ?? 0, index.get(w) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) {
        low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(frame.node) ?? 0));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let w2: string | undefined;
        do {
          w2 = stack.pop();
          if (w2 === undefined) break;
          onStack.delete(w2);
          component.push(w2);
        } while (w2 !== frame.node);
        if (component.length > 1) found.push(component.sort());
      }
    }
  }
  return found.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** A module path is `area` or inside it: "lib/env" matches lib/env.ts, "lib/domain" its tree. */
export function within(file: string, area: string): boolean {
  const bare = file.replace(/\.(ts|tsx|mts|mjs|json)$/, "").replace(/\/index$/, "");
  return bare === area || file.startsWith(`${area}/`);
}

const inAny = (file: string, areas: readonly string[]) => areas.some((a) => within(file, a));

type Rule = {
  /** The sentence a violation is reported under. */
  rule: string;
  /** Files the rule constrains. */
  applies: (from: string) => boolean;
  /** True when this import breaks it. */
  breaks: (to: string) => boolean;
};

const DB_IMPORTERS = ["lib/server", "lib/auth", "worker", "scripts", "web", "db", "e2e", "entry"];

export const RULES: Rule[] = [
  {
    rule: "lib/domain imports nothing of ours outside lib/domain",
    applies: (from) => within(from, "lib/domain"),
    breaks: (to) => !within(to, "lib/domain"),
  },
  {
    rule: "db/ imports only db/, lib/domain and lib/env",
    applies: (from) => within(from, "db"),
    breaks: (to) => !inAny(to, ["db", "lib/domain", "lib/env"]),
  },
  {
    rule: `db/ is imported only from ${DB_IMPORTERS.join(", ")}`,
    applies: (from) => !inAny(from, DB_IMPORTERS),
    breaks: (to) => within(to, "db"),
  },
  {
    rule: "lib/server never imports lib/auth, lib/api or lib/actions (lib/auth → lib/server)",
    applies: (from) => within(from, "lib/server"),
    breaks: (to) => inAny(to, ["lib/auth", "lib/api", "lib/actions"]),
  },
  {
    rule: "lib/auth never imports lib/api or lib/actions (lib/api | lib/actions → lib/auth)",
    applies: (from) => within(from, "lib/auth"),
    breaks: (to) => inAny(to, ["lib/api", "lib/actions"]),
  },
  {
    rule: "worker/ never imports lib/api, lib/actions, lib/auth, app or components",
    applies: (from) => within(from, "worker"),
    breaks: (to) => inAny(to, ["lib/api", "lib/actions", "lib/auth", "app", "components"]),
  },
];

/** Each problem as a readable paragraph; empty when the layering holds. */
export function checkLayering(imports: Import[]): string[] {
  const problems: string[] = [];
  for (const imp of imports) {
    if (!imp.to) problems.push(`${imp.from}: import "${imp.specifier}" names no file`);
  }
  for (const { rule, applies, breaks } of RULES) {
    const offending = imports.filter((i) => i.to && applies(i.from) && breaks(i.to));
    if (offending.length > 0) {
      problems.push(
        [
          `${rule}, but:`,
          ...offending.map((i) => `  ${i.from} imports "${i.specifier}" (${i.to})`),
        ].join("\n"),
      );
    }
  }
  const graph = folderGraph(imports);
  const plain = new Map([...graph].map(([folder, edges]) => [folder, [...edges.keys()]]));
  const found = cycles(plain);
  for (const cycle of found) {
    const lines = [`folders import each other: ${cycle.join(" ↔ ")}`];
    for (const a of cycle) {
      for (const [b, via] of graph.get(a) ?? []) {
        if (!cycle.includes(b)) continue;
        lines.push(`  ${a} → ${b}:`);
        for (const i of via) lines.push(`    ${i.from} imports "${i.specifier}"`);
      }
    }
    problems.push(lines.join("\n"));
  }
  return problems;
}

export const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The check over this project's sources. */
export function layeringProblems(root = PROJECT_ROOT): string[] {
  return checkLayering(importsOf(root, sourceFiles(root)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const problems = layeringProblems();
  console.log(problems.length === 0 ? "layering holds" : problems.join("\n\n"));
  process.exitCode = problems.length === 0 ? 0 : 1;
}
