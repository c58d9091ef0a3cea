import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { parseRoleMap, roleFromGroups } from "./oidc-roles";

const MAP = "ledger-admins=admin,ledger-reviewers=reviewer,ledger-ops=ops";

describe("parseRoleMap", () => {
  it("reads group=role pairs, trimming spaces", () => {
    expect([...parseRoleMap(" ledger-admins = admin , /eng/on-call=ops ")]).toEqual([
      ["ledger-admins", "admin"],
      ["/eng/on-call", "ops"],
    ]);
  });

  it("skips pairs without a group or with a role we do not have", () => {
    expect([...parseRoleMap("a=root,=admin,b=,c,d=reviewer")]).toEqual([["d", "reviewer"]]);
    expect(parseRoleMap(undefined).size).toBe(0);
    expect(parseRoleMap("").size).toBe(0);
  });

  it("keeps the strongest role for a group listed twice", () => {
    expect(parseRoleMap("g=admin,g=ops").get("g")).toBe("admin");
    expect(parseRoleMap("g=ops,g=reviewer").get("g")).toBe("reviewer");
  });

  it("is the same grammar lib/env accepts for OIDC_ROLE_MAP", () => {
    expect(parseEnv({ OIDC_ROLE_MAP: MAP }).OIDC_ROLE_MAP).toBe(MAP);
    expect(() => parseEnv({ OIDC_ROLE_MAP: "ledger-admins=root" })).toThrow(/OIDC_ROLE_MAP/);
  });
});

describe("roleFromGroups", () => {
  it("maps an array claim", () => {
    expect(roleFromGroups(["everyone", "ledger-reviewers"], MAP)).toBe("reviewer");
    expect(roleFromGroups(["ledger-ops"], MAP)).toBe("ops");
  });

  it("maps a string claim holding one group or several separated by spaces or commas", () => {
    expect(roleFromGroups("ledger-reviewers", MAP)).toBe("reviewer");
    expect(roleFromGroups("everyone ledger-ops", MAP)).toBe("ops");
    expect(roleFromGroups("ledger-ops, ledger-admins", MAP)).toBe("admin");
  });

  it("gives the strongest role whatever the order", () => {
    const all = ["ledger-ops", "ledger-admins", "ledger-reviewers"];
    expect(roleFromGroups(all, MAP)).toBe("admin");
    expect(roleFromGroups([...all].reverse(), MAP)).toBe("admin");
    expect(roleFromGroups(["ledger-ops", "ledger-reviewers"], MAP)).toBe("reviewer");
  });

  it("gives no role for unknown groups, other claim shapes or no map", () => {
    expect(roleFromGroups(["marketing", "Ledger-Admins"], MAP)).toBeNull();
    expect(roleFromGroups([], MAP)).toBeNull();
    expect(roleFromGroups("", MAP)).toBeNull();
    expect(roleFromGroups(undefined, MAP)).toBeNull();
    expect(roleFromGroups(null, MAP)).toBeNull();
    expect(roleFromGroups({ "ledger-admins": true }, MAP)).toBeNull();
    expect(roleFromGroups([42, { name: "ledger-admins" }, null], MAP)).toBeNull();
    expect(roleFromGroups(["ledger-admins"], undefined)).toBeNull();
  });

  it("ignores non-string members and still maps the rest", () => {
    expect(roleFromGroups([7, "ledger-reviewers", null], MAP)).toBe("reviewer");
  });
});
