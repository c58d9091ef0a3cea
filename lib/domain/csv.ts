// CSV for exports that people open in a spreadsheet. A cell that starts with = + - @ (or a tab
// or carriage return, which some spreadsheets skip before reading a formula) is a formula to
// Excel and LibreOffice: ledger data comes from agents, providers and API callers, so such a
// cell is defused with a leading apostrophe (OWASP "CSV injection"), then quoted per RFC 4180.

const FORMULA_START = /^[=+\-@\t\r]/;

/** The text a spreadsheet shows as text, never evaluates. */
export function defuseCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** One CSV cell: defused, and quoted when it holds a comma, quote or line break. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string" ? defuseCell(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, CRLF-terminated as RFC 4180 asks. */
export function csvRow(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
