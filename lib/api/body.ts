// Reads a request body up to a cap, counting bytes as they arrive: a declared Content-Length
// over the cap is refused before reading, and a chunked body is cut as soon as it passes it,
// so no more than the cap is ever held in memory.
import { ApiProblem } from "./problems";

export async function readCappedBody(request: Request, cap: number): Promise<Uint8Array> {
  const tooLarge = () => new ApiProblem("payload-too-large", `at most ${cap} bytes`);
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > cap) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
