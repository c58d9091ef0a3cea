// Viewers for tests: a signed-in person with a role's scopes, or an API token with exactly the
// scopes given. Plain values; nothing is written to the database.
import { type Role, type Scope, scopesForRole, type Viewer } from "../domain/access";

export function testViewer(role: Role, email = `${role}@example.com`): Viewer {
  return {
    kind: "user",
    id: `test-${role}`,
    email,
    name: role,
    role,
    scopes: scopesForRole(role),
    sessionId: `test-session-${role}`,
  };
}

export function testTokenViewer(scopes: readonly Scope[], name = "test-token"): Viewer {
  return { kind: "token", id: `test-token-${name}`, name, scopes: new Set(scopes) };
}
