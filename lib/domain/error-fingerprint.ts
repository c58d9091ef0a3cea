// An error's fingerprint: its message with the parts that differ between occurrences of the
// same failure (quoted values, emails, UUIDs, hex keys, ids, numbers) replaced by placeholders,
// so "refund re_123 failed: 502" and "refund re_9 failed: 503" are one group on the dead-letter
// screen. The database evaluates the same rules (the immutable error_fingerprint SQL function
// of migration 0009): the filtered list and a bulk action's frozen set select by fingerprint in
// SQL, in the transaction that freezes them. Every pattern uses only syntax that means the same
// in JavaScript and PostgreSQL regular expressions (no \b, \d, lookbehind or flags but g), and
// error-fingerprint.test.ts checks on a corpus that both sides agree.

/** Longest fingerprint kept, in characters (code points, as PostgreSQL's left() counts). */
export const FINGERPRINT_MAX_CHARS = 200;

/** A token starts at the start of the text or after a character that cannot be in a word. */
const START = "(^|[^A-Za-z0-9_])";

export type FingerprintRule = {
  pattern: string;
  placeholder: string;
  /** The pattern begins with START: the boundary character (group 1) stays before it. */
  keepsBoundary: boolean;
};

const rule = (pattern: string, placeholder: string): FingerprintRule => ({
  pattern,
  placeholder,
  keepsBoundary: pattern.startsWith(START),
});

/** The rules in the order both sides apply them; migration 0009 spells the same chain. */
export const FINGERPRINT_RULES: readonly FingerprintRule[] = [
  rule('"[^"]*"', '"…"'),
  rule("'[^']*'", "'…'"),
  rule("[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+([.][A-Za-z0-9-]+)+", "<email>"),
  rule("[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}", "<uuid>"),
  rule(`${START}(0x)?[0-9A-Fa-f]{16,}`, "<hex>"),
  rule(`${START}[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9]*[0-9][A-Za-z0-9_]*`, "<id>"),
  rule(`${START}[0-9]+([.,][0-9]+)*`, "<n>"),
  rule("[ \t\r\n]+", " "),
];

/** The fingerprint of an error message; "" when there is none. */
export function errorFingerprint(message: string | null | undefined): string {
  if (!message) return "";
  let text = message;
  for (const r of FINGERPRINT_RULES) {
    text = text.replace(
      new RegExp(r.pattern, "g"),
      r.keepsBoundary ? `$1${r.placeholder}` : r.placeholder,
    );
  }
  text = text.replace(/^ +| +$/g, "");
  return Array.from(text).slice(0, FINGERPRINT_MAX_CHARS).join("");
}

/**
 * The body of the SQL function, built from the same rules: the migration holds its output, and
 * the test checks the migration still says exactly this.
 */
export function fingerprintSqlExpression(arg = "message"): string {
  let expr = arg;
  for (const r of FINGERPRINT_RULES) {
    const replacement = r.keepsBoundary ? `\\1${r.placeholder}` : r.placeholder;
    expr = `regexp_replace(${expr}, ${sqlString(r.pattern)}, ${sqlString(replacement)}, 'g')`;
  }
  return `left(btrim(${expr}, ' '), ${FINGERPRINT_MAX_CHARS})`;
}

function sqlString(text: string): string {
  // E'' so \t, \r, \n in the whitespace rule and \1 in replacements are spelled unambiguously.
  return `E'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\t/g, "\\t").replace(/\r/g, "\\r").replace(/\n/g, "\\n")}'`;
}
