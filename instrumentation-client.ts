// Runs in the browser before the dashboard's own modules. zod compiles object schemas with
// `new Function` unless told not to, and our CSP forbids eval: every schema built in a client
// bundle (lib/domain's, at module load) would report a CSP violation. Jitless parses the same.
import { z } from "zod";

z.config({ jitless: true });
