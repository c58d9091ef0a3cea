// How an IdP's groups become one of our roles: OIDC_ROLE_MAP "group=role,…"; the strongest
// mapped role wins; no mapped group → null (the person may not sign in).
import { ROLES, type Role } from "../domain/access";

const STRENGTH: Record<Role, number> = { ops: 0, reviewer: 1, admin: 2 };

export function parseRoleMap(map: string | undefined): Map<string, Role> {
  const out = new Map<string, Role>();
  for (const pair of (map ?? "").split(",")) {
    const [group, role] = pair.split("=").map((s) => s.trim());
    if (!group || !role || !(ROLES as readonly string[]).includes(role)) continue;
    // A group listed twice keeps its strongest role, as a person in several groups does.
    const before = out.get(group);
    if (!before || STRENGTH[role as Role] > STRENGTH[before]) out.set(group, role as Role);
  }
  return out;
}

export function roleFromGroups(claim: unknown, map: string | undefined): Role | null {
  const groups = Array.isArray(claim)
    ? claim.filter((g): g is string => typeof g === "string")
    : typeof claim === "string"
      ? claim.split(/[\s,]+/)
      : [];
  const roles = parseRoleMap(map);
  let best: Role | null = null;
  for (const g of groups) {
    const r = roles.get(g);
    if (r && (best === null || STRENGTH[r] > STRENGTH[best])) best = r;
  }
  return best;
}
