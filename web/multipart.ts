// A multipart/form-data body's part headers, checked before Next's parser sees them: a field
// name with NUL made it fail with a 500. Only the header block of each part is looked at.

/** Why the body cannot be a form, or null when its part headers are fine. */
export function multipartProblem(contentType: string, body: Buffer): string | null {
  const boundary = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  const value = boundary?.[1] ?? boundary?.[2];
  if (!value) return "a multipart body needs a boundary of 1 to 70 characters";
  const delimiter = Buffer.from(`--${value}`);
  let at = body.indexOf(delimiter);
  if (at < 0) return "the multipart body has no part";
  for (;;) {
    const afterDelimiter = at + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString("latin1") === "--") return null;
    const headersEnd = body.indexOf("\r\n\r\n", afterDelimiter);
    if (headersEnd < 0) return "a multipart part has no end of headers";
    if (body.subarray(afterDelimiter, headersEnd).includes(0)) {
      return "a multipart part's headers (its field name) hold a NUL character";
    }
    at = body.indexOf(delimiter, headersEnd);
    if (at < 0) return "the multipart body does not end with its closing boundary";
  }
}
