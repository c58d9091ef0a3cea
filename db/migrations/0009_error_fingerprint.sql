-- The error fingerprint of lib/domain/error-fingerprint.ts (errorFingerprint), for the dead-letter
-- screen's groups and filter and a bulk action's frozen set, which select in SQL. Immutable: the
-- same message always has the same fingerprint. error-fingerprint.test.ts checks this body is
-- fingerprintSqlExpression() and that both sides agree on a corpus.
create function error_fingerprint(message text) returns text
language sql immutable strict parallel safe
return left(btrim(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(message, E'"[^"]*"', E'"…"', 'g'), E'\'[^\']*\'', E'\'…\'', 'g'), E'[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+([.][A-Za-z0-9-]+)+', E'<email>', 'g'), E'[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}', E'<uuid>', 'g'), E'(^|[^A-Za-z0-9_])(0x)?[0-9A-Fa-f]{16,}', E'\\1<hex>', 'g'), E'(^|[^A-Za-z0-9_])[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9]*[0-9][A-Za-z0-9_]*', E'\\1<id>', 'g'), E'(^|[^A-Za-z0-9_])[0-9]+([.,][0-9]+)*', E'\\1<n>', 'g'), E'[ \t\r\n]+', E' ', 'g'), ' '), 200);
