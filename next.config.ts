import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";
import { SECURITY_HEADERS } from "./web/headers";

/** Set by `npm start` for its own build; read here, as a literal "1", and nowhere else. */
const startBuild = process.env.AGENT_LEDGER_START_BUILD === "1";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // The build also writes .next/standalone: the server files and the node_modules they use, which
  // scripts/build-dashboard.ts turns into the dashboard that runs with plain `node`
  // (dist/dashboard). The same build serves `npm start` and `npm run web` from this checkout.
  output: "standalone",
  // Traced from this folder, never from a parent Next might take for a workspace root: the
  // standalone folder then holds server.js and node_modules at its top.
  outputFileTracingRoot: fileURLToPath(new URL(".", import.meta.url)),
  // No page uses next/image, so Next's image optimizer is off and sharp (about 19 MB of native
  // libvips) stays out of the traced node_modules the dashboard ships with.
  images: { unoptimized: true },
  outputFileTracingExcludes: { "*": ["node_modules/sharp/**", "node_modules/@img/**"] },
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
