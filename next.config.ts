import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./web/headers";

/** Set by `npm start` for its own build; read here, as a literal "1", and nowhere else. */
const startBuild = process.env.AGENT_LEDGER_START_BUILD === "1";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // `npm start` builds with AGENT_LEDGER_START_BUILD=1 (scripts/launch/build-if-needed.ts) and skips the
  // type-check there: about 40 s of a first start, and `npm test` and CI run tsc themselves. Any
  // other build (npm test's build stage, CI's e2e build) checks types, Next's route types included.
  typescript: { ignoreBuildErrors: startBuild },
  // pg is on Next's built-in list of external packages today; naming it keeps the driver (and
  // its optional native binding) out of the server bundle should that list change.
  serverExternalPackages: ["pg", "pino", "pino-pretty"],
  // forbidden() answers 403 from a page whose viewer lacks the scope.
  experimental: {
    authInterrupts: true,
    // Nor does npm start's build write Turbopack's build cache: measured here, writing it costs a
    // first start 16 s of CPU (64 s instead of 48 s) and saves a rebuild after an edit 12 s.
    ...(startBuild ? { turbopackFileSystemCacheForBuild: false } : {}),
  },
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
