// Which address a request comes from. The socket's peer, unless that peer is a proxy named in
// TRUSTED_PROXIES: then X-Forwarded-For is read from the right, skipping trusted hops, and the
// first untrusted hop is the client. A client can write anything at the left of the header, so
// the leftmost value is never believed on its own.
import { BlockList, isIP } from "node:net";

/** Set by the web server's front gate from the socket (any value the client sent is dropped). */
export const CLIENT_ADDRESS_HEADER = "x-agent-ledger-client-address";

export type TrustedProxies = BlockList;

function bare(address: string): string {
  const trimmed = address.trim().replace(/^\[(.*)\](?::\d+)?$/, "$1");
  return trimmed.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");
}

/** "10.0.0.0/8, 192.168.1.7, fd00::/8" → a BlockList; throws naming the first bad entry. */
export function parseTrustedProxies(spec: string): TrustedProxies {
  const list = new BlockList();
  for (const raw of spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    // Split at the first slash only: "10.0.0.0/8/9" is a bad prefix, not a /8.
    const slash = raw.indexOf("/");
    const address = slash < 0 ? raw : raw.slice(0, slash);
    const prefix = slash < 0 ? undefined : raw.slice(slash + 1);
    const family = isIP(address);
    if (family === 0) throw new Error(`"${raw}" is not an IP address or CIDR`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) {
      list.addAddress(address, type);
      continue;
    }
    const bits = Number(prefix);
    if (!/^\d+$/.test(prefix) || bits > (family === 4 ? 32 : 128)) {
      throw new Error(`"${raw}" has an invalid prefix length`);
    }
    list.addSubnet(address, bits, type);
  }
  return list;
}

function trusted(list: TrustedProxies | null, address: string): boolean {
  if (!list) return false;
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The client's address, or null when the socket has none (a closed connection). */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | null | undefined,
  trustedProxies: TrustedProxies | null,
): string | null {
  if (!socketAddress) return null;
  let client = bare(socketAddress);
  if (!trusted(trustedProxies, client) || !forwardedFor) return isIP(client) ? client : null;
  const hops = forwardedFor.split(",").map(bare).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i] as string;
    if (isIP(hop) === 0) break;
    client = hop;
    if (!trusted(trustedProxies, hop)) break;
  }
  return isIP(client) ? client : null;
}
