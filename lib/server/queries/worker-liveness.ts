// When a worker counts as live: one definition for every screen, scrape and command that asks.
// A worker of the fleet (not the web server's alert-delivery worker), not stopped, seen within
// one task lease: a worker that stops heartbeating loses its tasks after that long too.

/** SQL condition on `workers`; `leaseParam` is the placeholder holding the lease in ms ("$1"). */
export function liveWorkerSql(leaseParam: string): string {
  return `role = 'worker' and stopped_at is null and last_seen_at > now() - ${leaseParam} * interval '1 millisecond'`;
}
