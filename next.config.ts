import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./web/headers";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // pg is on Next's built-in list of external packages today; naming it keeps the driver (and
  // its optional native binding) out of the server bundle should that list change.
  serverExternalPackages: ["pg", "pino", "pino-pretty"],
  // forbidden() answers 403 from a page whose viewer lacks the scope.
  experimental: { authInterrupts: true },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [...SECURITY_HEADERS],
      },
    ];
  },
};

export default nextConfig;
