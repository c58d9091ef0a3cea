// The Dockerfile and compose.yaml cannot be built here (no Docker daemon), so this holds them to
// the files they name: the dashboard stage copies the folder scripts/build-dashboard.ts writes
// and starts the server.js in it, the build stage runs the build that writes it, and every
// source file a command names exists. With a build present, server.js is where CMD looks.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DASHBOARD_DIR, DASHBOARD_SERVER } from "./launch/dashboard-paths";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

type Stage = { name: string; from: string; lines: string[] };

/** The Dockerfile's stages, each with its instructions (comments and continuations joined). */
function stages(text: string): Stage[] {
  const out: Stage[] = [];
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  for (const line of lines) {
    const from = /^FROM\s+(\S+)\s+AS\s+(\S+)$/i.exec(line);
    if (from) out.push({ name: from[2] as string, from: from[1] as string, lines: [] });
    else out.at(-1)?.lines.push(line);
  }
  return out;
}

const last = (stage: Stage, instruction: string) =>
  stage.lines.filter((l) => l.startsWith(`${instruction} `)).at(-1);
const execForm = (line: string | undefined) =>
  JSON.parse(line?.replace(/^(CMD|ENTRYPOINT)\s+/, "") ?? "null") as string[] | null;

const dockerfile = stages(read("Dockerfile"));
const stage = (name: string) => {
  const found = dockerfile.find((s) => s.name === name);
  if (!found) throw new Error(`the Dockerfile has no stage ${name}`);
  return found;
};

describe("the Dockerfile", () => {
  it("builds with npm ci and npm run build, which writes the built dashboard", () => {
    const build = stage("build");
    expect(build.lines).toContain("RUN npm ci --no-audit --no-fund");
    expect(build.lines).toContain("RUN npm run build");
    const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> })
      .scripts;
    expect(scripts.build).toMatch(/^next build && .*scripts\/build-dashboard\.ts$/);
  });

  it("ends with the dashboard: the folder the build writes, started by plain node as non-root", () => {
    const dashboard = dockerfile.at(-1) as Stage;
    expect(dashboard.name).toBe("dashboard");
    expect(dashboard.from).not.toBe("build");
    const workdir = last(stage("build"), "WORKDIR")?.split(/\s+/)[1];
    const copy = last(dashboard, "COPY");
    expect(copy).toBe(`COPY --from=build ${workdir}/${DASHBOARD_DIR} ./`);
    expect(last(dashboard, "WORKDIR")).toBe("WORKDIR /app");
    const cmd = execForm(last(dashboard, "CMD"));
    expect(cmd).toEqual(["node", path.posix.relative(DASHBOARD_DIR, DASHBOARD_SERVER)]);
    const user = last(dashboard, "USER");
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^USER\s+(root|0)\b/);
    // The server binds HOST (127.0.0.1 unless told): in a container it must listen outside.
    expect(last(dashboard, "ENV")).toMatch(/\bHOST=0\.0\.0\.0\b/);
  });

  it("runs the worker from the sources it has", () => {
    const cmd = execForm(last(stage("worker"), "CMD")) ?? [];
    expect(cmd.slice(0, 3)).toEqual(["node", "--import", "tsx"]);
    expect(existsSync(path.join(ROOT, cmd[3] ?? "missing"))).toBe(true);
  });

  it("leaves local builds and modules out of the context, so the image builds its own", () => {
    const ignored = read(".dockerignore").split("\n");
    for (const entry of ["node_modules", ".next", "dist", ".data"]) {
      expect(ignored).toContain(entry);
    }
  });

  it.skipIf(!existsSync(path.join(ROOT, DASHBOARD_SERVER)))(
    "copies a folder whose server.js, .next and node_modules the build wrote",
    () => {
      for (const file of ["server.js", ".next/BUILD_ID", "node_modules/next/package.json"]) {
        expect(existsSync(path.join(ROOT, DASHBOARD_DIR, file)), file).toBe(true);
      }
    },
  );
});

describe("compose.yaml", () => {
  const compose = read("compose.yaml");

  it("builds only targets the Dockerfile has", () => {
    const targets = [...compose.matchAll(/target:\s*(\w+)/g)].map((m) => m[1]);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      expect(dockerfile.map((s) => s.name)).toContain(target);
    }
  });

  it("runs files that exist", () => {
    for (const file of ["bin/agent-ledger.mjs", "worker/demo/main.ts"]) {
      expect(compose).toContain(file);
      expect(existsSync(path.join(ROOT, file)), file).toBe(true);
    }
  });
});
