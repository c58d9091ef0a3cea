import path from "node:path";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { loadAgentsModule, moduleUrl } from "./agents-module";

const pool = {} as pg.Pool;
const fixture = (name: string) => path.join(import.meta.dirname, "fixtures", name);

describe("loadAgentsModule", () => {
  it("calls a default-exported factory with the env and takes the exported model", async () => {
    const loaded = await loadAgentsModule(fixture("agents-factory.ts"), {
      env: { FIXTURE_AGENT_NAME: "from-env" },
      pool,
    });
    expect(loaded.agents.map((a) => a.name)).toEqual(["from-env"]);
    expect(loaded.model?.name).toBe("fixture");
    const mod = await import("./fixtures/agents-factory");
    await loaded.close();
    expect(mod.closed).toBe(1);
  });

  it("names the module and what is wrong with it", async () => {
    await expect(loadAgentsModule(fixture("agents-bad.ts"), { env: {}, pool })).rejects.toThrow(
      /agents-bad\.ts: .*every item must be an agent made with defineAgent/s,
    );
    await expect(loadAgentsModule(fixture("missing.ts"), { env: {}, pool })).rejects.toThrow(
      /could not load the agents module .*missing\.ts/,
    );
    await expect(
      loadAgentsModule(fixture("../agents-module.ts"), { env: {}, pool }),
    ).rejects.toThrow(/exports neither "agents" nor a default/);
  });

  it("resolves paths from the working directory and leaves package names alone", () => {
    expect(moduleUrl("./dist/agents.js", "/srv/app")).toBe("file:///srv/app/dist/agents.js");
    expect(moduleUrl("/abs/agents.js", "/srv/app")).toBe("file:///abs/agents.js");
    expect(moduleUrl("@acme/agents")).toBe("@acme/agents");
  });
});
