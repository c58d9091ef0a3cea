// The shop the agent works for: orders to look up and a refunds API that honours an
// Idempotency-Key, as Stripe's does. It counts what it performed, so a test can prove that no
// refund was made twice however often workers died. `node dist/shop.js` (PORT, default 4600).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";

export type Refund = { refundId: string; orderId: string; amountCents: number; currency: string };
export type ShopStats = {
  /** POST /refunds received, resends included. */
  refundRequests: number;
  /** Refunds performed: one per idempotency key. */
  refundsPerformed: number;
  /** Orders refunded more than once (must stay 0). */
  duplicateRefunds: number;
};

const ORDERS: Record<string, { amountCents: number; currency: string; customer: string }> = {};
for (let i = 1; i <= 500; i++) {
  ORDERS[`A-${i}`] = {
    amountCents: 1_000 + i * 137,
    currency: "usd",
    customer: `c${i}@example.com`,
  };
}
ORDERS["BIG-1"] = { amountCents: 250_000, currency: "eur", customer: "vip@example.com" };

async function body(req: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

export function startShop(port = 0): Promise<{ server: Server; url: string; stats(): ShopStats }> {
  const byKey = new Map<string, Refund>();
  const perOrder = new Map<string, number>();
  let refundRequests = 0;
  const server = createServer(async (req, res) => {
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    };
    try {
      const url = new URL(req.url ?? "/", "http://shop");
      const order = url.pathname.match(/^\/orders\/([\w-]+)$/);
      if (req.method === "GET" && order?.[1]) {
        const found = ORDERS[order[1]];
        return found
          ? send(200, { orderId: order[1], ...found })
          : send(404, { error: "no such order" });
      }
      if (req.method === "POST" && url.pathname === "/refunds") {
        refundRequests++;
        const key = req.headers["idempotency-key"];
        if (typeof key !== "string" || key.length < 8)
          return send(400, { error: "Idempotency-Key required" });
        const seen = byKey.get(key);
        if (seen) return send(200, seen);
        const { orderId, amountCents, currency } = (await body(req)) as Refund;
        const refund = { refundId: `re_${byKey.size + 1}`, orderId, amountCents, currency };
        byKey.set(key, refund);
        perOrder.set(orderId, (perOrder.get(orderId) ?? 0) + 1);
        return send(200, refund);
      }
      if (req.method === "GET" && url.pathname === "/_stats") {
        const stats: ShopStats = {
          refundRequests,
          refundsPerformed: byKey.size,
          duplicateRefunds: [...perOrder.values()].filter((n) => n > 1).length,
        };
        return send(200, stats);
      }
      send(404, { error: "not found" });
    } catch (err) {
      send(500, { error: (err as Error).message });
    }
  });
  return new Promise((resolve) =>
    server.listen(port, "127.0.0.1", () => {
      const { port: at } = server.address() as AddressInfo;
      resolve({
        server,
        url: `http://127.0.0.1:${at}`,
        stats: () => ({
          refundRequests,
          refundsPerformed: byKey.size,
          duplicateRefunds: [...perOrder.values()].filter((n) => n > 1).length,
        }),
      });
    }),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const shop = await startShop(Number(process.env.PORT ?? 4600));
  console.log(`shop listening on ${shop.url}`);
  process.on("SIGTERM", () => shop.server.close(() => process.exit(0)));
}
