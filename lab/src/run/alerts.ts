// Watches Alertmanager while a scenario runs and settles: once a second it reads the active alerts
// (API v2) and keeps, per alert, when it first held, when it reached Alertmanager and when it resolved.
// Alertmanager 0.25's GET /api/v2/alerts leaves out every alert whose endsAt has passed, and
// Prometheus sends a resolved alert with endsAt = the moment it resolved: so "resolved" is the first
// poll that no longer lists it (or, in case, lists it with endsAt in the past).
import type { AlertSpan } from "@orderflow/load/report/alert-marks.ts";

/** The fields of GET /api/v2/alerts the watcher reads. */
export interface AmAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  fingerprint: string;
  startsAt: string;
  endsAt?: string;
}

export interface WatchedAlert extends AlertSpan {
  fingerprint: string;
  /** Alertmanager's startsAt as it gave it. */
  startsAt: string;
  annotations: Record<string, string>;
}

/** True when the alert in this snapshot is active at `nowEpochMs` (a zero or future endsAt). */
function isActive(a: AmAlert, nowEpochMs: number): boolean {
  const ends = a.endsAt === undefined ? Number.NaN : Date.parse(a.endsAt);
  return !(ends > 0 && ends <= nowEpochMs);
}

/**
 * Folds snapshots of Alertmanager's alerts into episodes, on the run's clock (ms since the load
 * started = epochAtZeroMs). Pure: the caller polls and passes each snapshot with its time. An alert
 * that resolves and fires again opens a second episode.
 */
export function createAlertLog(epochAtZeroMs: number) {
  const episodes: WatchedAlert[] = [];
  const open = new Map<string, WatchedAlert>();
  let polls = 0;
  return {
    observe(snapshot: readonly AmAlert[], atMs: number): void {
      const now = epochAtZeroMs + atMs;
      const first = polls++ === 0;
      const active = new Set<string>();
      for (const a of snapshot) {
        if (!isActive(a, now)) continue;
        active.add(a.fingerprint);
        if (open.has(a.fingerprint)) continue;
        const { alertname, ...labels } = a.labels;
        const ep: WatchedAlert = {
          name: alertname ?? "(no alertname)",
          labels,
          fingerprint: a.fingerprint,
          startsAt: a.startsAt,
          startsAtMs: Date.parse(a.startsAt) - epochAtZeroMs,
          firstSeenMs: atMs,
          resolvedMs: null,
          annotations: a.annotations ?? {},
          ...(first ? { activeAtStart: true } : {}),
        };
        episodes.push(ep);
        open.set(a.fingerprint, ep);
      }
      for (const [fp, ep] of open) {
        if (active.has(fp)) continue;
        // Listed with an endsAt in the past says exactly when it resolved; gone says "by this poll".
        const ended = snapshot.find((a) => a.fingerprint === fp)?.endsAt;
        const endedMs = ended === undefined ? Number.NaN : Date.parse(ended) - epochAtZeroMs;
        ep.resolvedMs =
          Number.isFinite(endedMs) && endedMs <= atMs ? Math.max(ep.firstSeenMs, endedMs) : atMs;
        open.delete(fp);
      }
    },
    episodes: (): WatchedAlert[] => episodes.map((e) => ({ ...e })),
    polls: () => polls,
  };
}

export interface AlertWatcher {
  /** The episodes so far. */
  alerts(): WatchedAlert[];
  /** Polls answered so far: an alert already listed by the first one was active before the watch began. */
  polls(): number;
  /** Resolves true once `done(alerts)` holds, false at the deadline (epoch ms) or when the watcher stopped. */
  waitUntil(done: (alerts: WatchedAlert[]) => boolean, deadlineEpochMs: number): Promise<boolean>;
  /** Stops polling; returns the episodes and how many polls failed (Alertmanager unreachable). */
  stop(): Promise<{ alerts: WatchedAlert[]; polls: number; failedPolls: number }>;
}

export interface WatchOptions {
  /** Alertmanager's base URL, e.g. http://127.0.0.1:17093. */
  url: string;
  /** ms since the run started, on the same clock as the run's events. */
  sinceMs: () => number;
  intervalMs?: number;
  /** The watcher stops by itself after this long (a run that never calls stop() still ends it). */
  maxMs?: number;
  log?: (line: string) => void;
}

export async function fetchAlerts(url: string, timeoutMs = 2_000): Promise<AmAlert[]> {
  const res = await fetch(`${url}/api/v2/alerts`, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`GET ${url}/api/v2/alerts: HTTP ${res.status}`);
  return (await res.json()) as AmAlert[];
}

/**
 * Waits until Alertmanager lists no active alert with one of these names, or the deadline: a node that
 * an earlier run (or the repair before this one) just brought back keeps its BrokerNodeDown open for
 * about 10 s, and this run's fault would then extend that episode instead of raising its own.
 * Returns the names still active at the deadline ([] when quiet; Alertmanager unreachable counts as quiet,
 * the watcher reports it).
 */
export async function waitUntilInactive(
  url: string,
  names: readonly string[],
  deadlineEpochMs: number,
): Promise<string[]> {
  for (;;) {
    let active: string[];
    try {
      const now = Date.now();
      active = (await fetchAlerts(url))
        .filter((a) => names.includes(a.labels.alertname ?? "") && isActive(a, now))
        .map((a) => `${a.labels.alertname}${a.labels.node ? `{node=${a.labels.node}}` : ""}`);
    } catch {
      return [];
    }
    if (active.length === 0 || Date.now() >= deadlineEpochMs) return active;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** The watcher of a target without Alertmanager: it sees nothing and polls nothing. */
export const NO_ALERT_WATCH: AlertWatcher = {
  alerts: () => [],
  polls: () => 0,
  waitUntil: async () => false,
  stop: async () => ({ alerts: [], polls: 0, failedPolls: 0 }),
};

export function startAlertWatcher(o: WatchOptions): AlertWatcher {
  const interval = o.intervalMs ?? 1_000;
  const stopAt = Date.now() + (o.maxMs ?? 20 * 60_000);
  const log = createAlertLog(Date.now() - o.sinceMs());
  let failed = 0;
  let running = true;
  let lastError = "";
  let wake = () => {};
  const loop = (async () => {
    while (running && Date.now() < stopAt) {
      const next = Date.now() + interval;
      try {
        const snapshot = await fetchAlerts(o.url, Math.min(2_000, interval * 2));
        log.observe(snapshot, o.sinceMs());
      } catch (e) {
        // A failed poll says nothing about the alerts: no episode opens or resolves on it.
        failed++;
        const msg = e instanceof Error ? e.message : String(e);
        if (msg !== lastError) o.log?.(`alertmanager poll failed: ${msg}`);
        lastError = msg;
      }
      // stop() may have come during the poll, when there was no sleep for its wake() to end.
      if (!running) break;
      // Unref'd, so a run that failed before stop() does not keep the process alive for maxMs; stop()
      // wakes it (an unref'd timer alone would let the process exit while stop() awaits it).
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, Math.max(0, next - Date.now())).unref();
      });
    }
    running = false;
  })();
  return {
    alerts: () => log.episodes(),
    polls: () => log.polls(),
    async waitUntil(done, deadlineEpochMs) {
      while (!done(log.episodes())) {
        if (!running || Date.now() >= deadlineEpochMs) return false;
        await new Promise((r) =>
          setTimeout(r, Math.min(interval, Math.max(0, deadlineEpochMs - Date.now()))),
        );
      }
      return true;
    },
    async stop() {
      running = false;
      wake();
      await loop;
      return { alerts: log.episodes(), polls: log.polls(), failedPolls: failed };
    },
  };
}
