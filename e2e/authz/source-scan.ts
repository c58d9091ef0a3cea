// What the source tree says can be called: every export of every "use server" file, every HTTP
// method exported by a route.ts, and every page with the scope it asks pageViewer for. Read with
// the TypeScript parser, so the matrix cannot drift from the code by a missed grep.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { ROOT } from "../settings";

const SOURCE_DIRS = ["app", "lib", "components"];
const SKIP_DIRS = new Set(["node_modules", ".next", ".data", "test-results", ".git"]);
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

export type ScannedAction = {
  /** "action:<export name>", the matrix's key. */
  target: string;
  exportName: string;
  /** Relative to the repository root, as in Next's server-reference manifest. */
  file: string;
  /** From `defineAction({ scope })`, when the export is one. */
  scope?: string;
  /** From `defineAction({ name })`, when the export is one. */
  specName?: string;
};

export type ScannedRoute = {
  /** "<METHOD> <route pattern>", e.g. "GET /api/health". */
  target: string;
  method: string;
  route: string;
  file: string;
  /** From `guardRoute(scope, …)`, when the export is one. */
  scope?: string;
};

export type ScannedPage = {
  /** The URL pattern, route groups removed: "/tasks/[id]". */
  route: string;
  file: string;
  /** Every scope the file passes to pageViewer (normally exactly one). */
  scopes: string[];
};

export type SourceScan = {
  actions: ScannedAction[];
  routes: ScannedRoute[];
  pages: ScannedPage[];
  /** Things the matrix cannot key and so must not exist (inline "use server", duplicates). */
  problems: string[];
};

function walk(dir: string, out: string[] = []): string[] {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (SKIP_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.(ts|tsx)$/.test(entry.name) && !/\.d\.ts$/.test(entry.name)) out.push(full);
  }
  return out;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
}

function isDirective(statement: ts.Statement | undefined, text: string): boolean {
  return (
    statement !== undefined &&
    ts.isExpressionStatement(statement) &&
    ts.isStringLiteral(statement.expression) &&
    statement.expression.text === text
  );
}

function hasModifier(node: ts.Node, kind: ts.SyntaxKind): boolean {
  return (
    (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === kind)) ?? false
  );
}

type CallInfo = {
  callee: string;
  scope?: string;
  specName?: string;
  /** The first argument when it is a plain identifier: `route(listTasksEndpoint)`. */
  argName?: string;
  /** String properties of an object-literal first argument. */
  props?: Record<string, string>;
};

/**
 * The callee name and first-argument details of `defineAction({...})`, `guardRoute("x", …)`,
 * `defineEndpoint({...})` and `route(endpoint)`.
 */
function describeCall(init: ts.Expression | undefined): CallInfo | undefined {
  let expr = init;
  while (expr && (ts.isAsExpression(expr) || ts.isParenthesizedExpression(expr))) {
    expr = expr.expression;
  }
  if (!expr || !ts.isCallExpression(expr)) return undefined;
  const callee = expr.expression.getText();
  const first = expr.arguments[0];
  if (first && ts.isStringLiteralLike(first)) return { callee, scope: first.text };
  if (first && ts.isIdentifier(first)) return { callee, argName: first.text };
  if (first && ts.isObjectLiteralExpression(first)) {
    const out: CallInfo = { callee, props: {} };
    for (const prop of first.properties) {
      if (!ts.isPropertyAssignment(prop) || !ts.isStringLiteralLike(prop.initializer)) continue;
      const key = prop.name.getText();
      (out.props as Record<string, string>)[key] = prop.initializer.text;
      if (key === "scope") out.scope = prop.initializer.text;
      if (key === "name") out.specName = prop.initializer.text;
    }
    return out;
  }
  return { callee };
}

type Export = { name: string; init?: ts.Expression };

/** Runtime exports of a module (types and interfaces are not callable, so not listed). */
function exportsOf(source: ts.SourceFile): Export[] {
  const out: Export[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly) continue;
      const clause = statement.exportClause;
      if (clause && ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          if (!element.isTypeOnly) out.push({ name: element.name.text });
        }
      } else {
        out.push({ name: `* from ${statement.moduleSpecifier?.getText() ?? "?"}` });
      }
      continue;
    }
    if (ts.isExportAssignment(statement)) {
      out.push({ name: "default", init: statement.expression });
      continue;
    }
    if (!hasModifier(statement, ts.SyntaxKind.ExportKeyword)) continue;
    const isDefault = hasModifier(statement, ts.SyntaxKind.DefaultKeyword);
    if (ts.isFunctionDeclaration(statement)) {
      out.push({ name: isDefault ? "default" : (statement.name?.text ?? "default") });
    } else if (ts.isVariableStatement(statement)) {
      for (const decl of statement.declarationList.declarations) {
        if (ts.isIdentifier(decl.name)) out.push({ name: decl.name.text, init: decl.initializer });
      }
    } else if (ts.isClassDeclaration(statement)) {
      out.push({ name: isDefault ? "default" : (statement.name?.text ?? "default") });
    }
  }
  return out;
}

/** Functions with their own "use server" directive: Next makes each one an action. */
function inlineServerActions(source: ts.SourceFile): number[] {
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isArrowFunction(node) ||
        ts.isMethodDeclaration(node)) &&
      node.body &&
      ts.isBlock(node.body) &&
      isDirective(node.body.statements[0], "use server")
    ) {
      lines.push(source.getLineAndCharacterOfPosition(node.getStart()).line + 1);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

/** "app/(dashboard)/tasks/[id]/page.tsx" → "/tasks/[id]". */
export function routeOf(relativeFile: string): string {
  const segments = relativeFile
    .split("/")
    .slice(1, -1)
    .filter((s) => !(s.startsWith("(") && s.endsWith(")")));
  return `/${segments.join("/")}`;
}

function pageScopes(source: ts.SourceFile): string[] {
  const scopes: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      node.expression.getText() === "pageViewer" &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      scopes.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return scopes;
}

export function scanSource(root = ROOT): SourceScan {
  const scan: SourceScan = { actions: [], routes: [], pages: [], problems: [] };
  const files = SOURCE_DIRS.flatMap((dir) => walk(path.join(root, dir))).sort();
  const endpoints = endpointsOf(files, root);
  for (const full of files) {
    const file = path.relative(root, full).split(path.sep).join("/");
    if (/\.(test|spec)\.tsx?$/.test(file)) continue;
    const source = parse(full);

    if (isDirective(source.statements[0], "use server")) {
      for (const ex of exportsOf(source)) {
        const call = describeCall(ex.init);
        scan.actions.push({
          target: `action:${ex.name}`,
          exportName: ex.name,
          file,
          ...(call?.callee === "defineAction"
            ? { scope: call.scope, specName: call.specName }
            : {}),
        });
      }
    }
    for (const line of inlineServerActions(source)) {
      scan.problems.push(
        `${file}:${line} declares an inline "use server" function; put it in lib/actions/ so the authorization matrix can name it`,
      );
    }

    if (file.startsWith("app/") && /\/route\.tsx?$/.test(file)) {
      const route = routeOf(file);
      for (const ex of exportsOf(source)) {
        if (!(HTTP_METHODS as readonly string[]).includes(ex.name)) continue;
        const call = describeCall(ex.init);
        // guardRoute("scope", …) and screenRoute({ scope, … }) (a live screen's reads) declare it.
        let scope =
          call?.callee === "guardRoute" || call?.callee === "screenRoute" ? call.scope : undefined;
        if (call?.callee === "route" && call.argName) {
          // An /api/v1 endpoint: its definition declares method, path and scope.
          const endpoint = endpoints.get(call.argName);
          if (!endpoint) {
            scan.problems.push(`${file}: route(${call.argName}) is not a defineEndpoint export`);
          } else if (`${endpoint.method} /api/v1${endpoint.path}` !== `${ex.name} ${route}`) {
            scan.problems.push(
              `${file}: ${ex.name} serves ${call.argName}, defined as ${endpoint.method} /api/v1${endpoint.path}`,
            );
          } else scope = endpoint.scope;
        }
        scan.routes.push({
          target: `${ex.name} ${route}`,
          method: ex.name,
          route,
          file,
          ...(scope ? { scope } : {}),
        });
      }
    }

    if (file.startsWith("app/") && /\/page\.tsx?$/.test(file)) {
      scan.pages.push({ route: routeOf(file), file, scopes: pageScopes(source) });
    }
  }

  const seen = new Map<string, string>();
  for (const action of scan.actions) {
    const other = seen.get(action.target);
    if (other) {
      scan.problems.push(
        `two server actions are exported as ${action.exportName} (${other} and ${action.file}); the matrix keys actions by name`,
      );
    }
    seen.set(action.target, action.file);
  }
  return scan;
}

type ScannedEndpoint = { method: string; path: string; scope?: string };

/** `export const x = defineEndpoint({ method, path, scope, … })`, by export name. */
function endpointsOf(files: string[], root: string): Map<string, ScannedEndpoint> {
  const out = new Map<string, ScannedEndpoint>();
  for (const full of files) {
    const file = path.relative(root, full).split(path.sep).join("/");
    if (!file.startsWith("lib/api/") || /\.(test|spec)\.tsx?$/.test(file)) continue;
    for (const ex of exportsOf(parse(full))) {
      const call = describeCall(ex.init);
      if (call?.callee !== "defineEndpoint" || !call.props) continue;
      out.set(ex.name, {
        method: call.props.method ?? "?",
        // Next's pattern for a path parameter: {id} → [id].
        path: (call.props.path ?? "?").replace(/\{(\w+)\}/g, "[$1]"),
        scope: call.scope,
      });
    }
  }
  return out;
}
