// Saving a Blob as a file from the page: an object URL on a temporary link, released after.
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.rel = "noopener";
  document.body.append(a);
  a.click();
  a.remove();
  // Long enough for the browser to have read it; then the memory is released.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
