// What every long-lived pool of a service or relay keeps: its connections, once opened, while idle.
// node-postgres closes a connection after 10 s without a query, so after a quiet spell the next burst
// reopened every pooled connection (a new backend, SCRAM authentication, each prepared statement parsed
// and planned again) while the burst queued behind it: at 150 orders/s after 15 s of quiet, written ->
// final p50 1.0-1.5 s for three seconds (pnpm bench), none after 2 s of quiet. A pool grows
// to what the load needs (each has its `max`) and then holds it, as fixed-size pools do elsewhere
// (HikariCP's default); a connection the server drops still leaves the pool on its error.
export const KEEP_IDLE_CONNECTIONS = { idleTimeoutMillis: 0 } as const;
