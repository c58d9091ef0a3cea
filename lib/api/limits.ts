// How big a request body may be, per kind of route. The web gate (web/gate.ts) refuses larger
// bodies before they are buffered; the handlers check again, so the limits hold behind any
// server.
/** /api/v1 bodies (enqueue, review commands). */
export const MAX_BODY_BYTES = 1_048_576;
/** Sign-in bodies: an email, a password (at most 256 characters) and a landing path. */
export const SIGN_IN_MAX_BODY_BYTES = 8_192;
