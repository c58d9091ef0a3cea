// Which address a request comes from: the socket's peer unless it is a trusted proxy, then
// X-Forwarded-For read from the right. What a client writes at the left is never believed.
import { describe, expect, it } from "vitest";
import { clientAddress, parseTrustedProxies } from "./client-address";

const proxies = parseTrustedProxies("10.0.0.0/8, 192.168.1.7, fd00::/8");

describe("clientAddress without trusted proxies", () => {
  it("is the socket's peer, whatever X-Forwarded-For says", () => {
    expect(clientAddress("203.0.113.9", "1.2.3.4", null)).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9", "1.2.3.4, 5.6.7.8", proxies)).toBe("203.0.113.9");
    expect(clientAddress("203.0.113.9", undefined, null)).toBe("203.0.113.9");
  });

  it("a rotating header gives one address", () => {
    const seen = new Set(
      Array.from({ length: 20 }, (_, i) => clientAddress("198.51.100.4", `10.9.9.${i}`, null)),
    );
    expect([...seen]).toEqual(["198.51.100.4"]);
  });

  it("is null without a socket address, or with one that is not an IP", () => {
    expect(clientAddress(undefined, "1.2.3.4", proxies)).toBeNull();
    expect(clientAddress("", "1.2.3.4", proxies)).toBeNull();
    expect(clientAddress("not-an-ip", null, null)).toBeNull();
  });
});

describe("clientAddress behind trusted proxies", () => {
  it("takes the hop the trusted proxy saw", () => {
    expect(clientAddress("10.1.2.3", "203.0.113.9", proxies)).toBe("203.0.113.9");
  });

  it("skips every trusted hop from the right", () => {
    expect(clientAddress("10.1.2.3", "203.0.113.9, 192.168.1.7, 10.4.4.4", proxies)).toBe(
      "203.0.113.9",
    );
  });

  it("ignores what the client wrote to the left of the first untrusted hop", () => {
    // The client sent "X-Forwarded-For: 1.1.1.1, 10.0.0.5"; our proxy appended the real peer.
    expect(clientAddress("10.1.2.3", "1.1.1.1, 10.0.0.5, 198.51.100.4", proxies)).toBe(
      "198.51.100.4",
    );
    // A spoofed leftmost value alone, appended to by the proxy: the proxy's hop wins.
    expect(clientAddress("10.1.2.3", "127.0.0.1, 198.51.100.4", proxies)).toBe("198.51.100.4");
  });

  it("stops at a hop that is not an address, keeping the last trusted one", () => {
    expect(clientAddress("10.1.2.3", "garbage", proxies)).toBe("10.1.2.3");
    expect(clientAddress("10.1.2.3", "203.0.113.9, unknown, 10.0.0.9", proxies)).toBe("10.0.0.9");
  });

  it("is the leftmost hop when every hop is trusted", () => {
    expect(clientAddress("10.1.2.3", "10.7.7.7, 10.8.8.8", proxies)).toBe("10.7.7.7");
  });

  it("is the proxy itself when it sent no header", () => {
    expect(clientAddress("10.1.2.3", null, proxies)).toBe("10.1.2.3");
    expect(clientAddress("10.1.2.3", "", proxies)).toBe("10.1.2.3");
  });

  it("trusts a single address only, not its neighbours", () => {
    expect(clientAddress("192.168.1.7", "203.0.113.9", proxies)).toBe("203.0.113.9");
    expect(clientAddress("192.168.1.8", "203.0.113.9", proxies)).toBe("192.168.1.8");
  });
});

describe("IPv6", () => {
  it("trusts an IPv6 subnet and reads IPv6 hops", () => {
    expect(clientAddress("fd00::1", "2001:db8::5", proxies)).toBe("2001:db8::5");
    expect(clientAddress("fe80::1", "2001:db8::5", proxies)).toBe("fe80::1");
  });

  it("strips brackets and ports from hops", () => {
    expect(clientAddress("fd00::1", "[2001:db8::5]:443", proxies)).toBe("2001:db8::5");
    expect(clientAddress("[2001:db8::7]:8080", null, null)).toBe("2001:db8::7");
  });

  it("maps ::ffff: addresses to IPv4 on the socket and in hops", () => {
    expect(clientAddress("::ffff:203.0.113.9", null, null)).toBe("203.0.113.9");
    expect(clientAddress("::FFFF:10.1.2.3", "203.0.113.9", proxies)).toBe("203.0.113.9");
    expect(clientAddress("10.1.2.3", "198.51.100.4, ::ffff:10.2.2.2", proxies)).toBe(
      "198.51.100.4",
    );
  });
});

describe("parseTrustedProxies", () => {
  it("accepts addresses and CIDRs of both families, with spaces and empty entries", () => {
    const list = parseTrustedProxies(" 10.0.0.0/8 ,, 2001:db8::/32, 192.0.2.1 ");
    expect(list.check("10.255.0.1", "ipv4")).toBe(true);
    expect(list.check("11.0.0.1", "ipv4")).toBe(false);
    expect(list.check("2001:db8::1", "ipv6")).toBe(true);
    expect(list.check("2001:db9::1", "ipv6")).toBe(false);
    expect(list.check("192.0.2.1", "ipv4")).toBe(true);
    expect(list.check("192.0.2.2", "ipv4")).toBe(false);
  });

  it("an empty list trusts nobody", () => {
    const none = parseTrustedProxies("");
    expect(clientAddress("10.1.2.3", "203.0.113.9", none)).toBe("10.1.2.3");
  });

  it.each([
    ["10.0.0.0/33", "invalid prefix length"],
    ["fd00::/129", "invalid prefix length"],
    ["10.0.0.0/", "invalid prefix length"],
    ["10.0.0.0/-1", "invalid prefix length"],
    ["10.0.0.0/8x", "invalid prefix length"],
    ["10.0.0.0/8/9", "invalid prefix length"],
    ["10.0.0/8", "is not an IP address or CIDR"],
    ["proxy.example.com", "is not an IP address or CIDR"],
    ["10.0.0.1, nonsense", "is not an IP address or CIDR"],
  ])("refuses %s, naming it", (spec, message) => {
    expect(() => parseTrustedProxies(spec)).toThrow(message);
    expect(() => parseTrustedProxies(spec)).toThrow(spec.split(", ").pop() as string);
  });
});
