// The session cookie's names (plain, and with the prefix browsers require on https), for the
// proxy and the route guard; better-auth is configured with the same prefix in auth.ts.
export const COOKIE_PREFIX = "agent-ledger";
export const SESSION_COOKIES = [
  `${COOKIE_PREFIX}.session_token`,
  `__Secure-${COOKIE_PREFIX}.session_token`,
];
