// The per-service dashboard (infra/grafana/dashboards/{order,inventory,points}.json), described once.
// Every query reads the dashboard's two hidden constants, `$service` and `$queue`; what differs between
// services is data: their work queue and the rows only one of them has (SERVICE_BOARDS, at the end).
// `pnpm dashboards` writes the JSON; docs/dashboards.md says what each panel shows.
import type { ServiceName } from "../services.ts";
import { type DashboardSpec, type RowSpec, stat, timeseries, UP_DOWN } from "./grafana.ts";

const STATS = { w: 6, h: 5 };
const GRAPHS = { w: 8, h: 8 };

const up: RowSpec = {
  title: "Up",
  size: STATS,
  panels: [
    stat({
      title: "Service and relay",
      description: "The service's and its relay's /metrics answering.",
      unit: "short",
      queries: [{ expr: 'up{job=~"service|relay", service="$service"}', legend: "{{job}}" }],
      fieldDefaults: UP_DOWN,
    }),
    stat({
      title: "Requests/s",
      description: "HTTP requests per second (probes, scrapes and API docs are not counted).",
      unit: "reqps",
      queries: [
        {
          expr: 'sum(rate(http_request_duration_seconds_count{job="service", service="$service"}[$__rate_interval]))',
        },
      ],
    }),
    stat({
      title: "Outbox backlog",
      description: "Rows waiting to be published.",
      unit: "short",
      queries: [{ expr: 'max(outbox_pending{service="$service"})' }],
    }),
    stat({
      title: "Parked messages",
      description: "Messages in this service's parking lot.",
      unit: "short",
      queries: [{ expr: 'sum(rabbitmq_queue_messages{job="rabbitmq", queue="$queue.parking"})' }],
    }),
  ],
};

const http: RowSpec = {
  title: "HTTP",
  size: GRAPHS,
  panels: [
    timeseries({
      title: "Requests by route and status",
      description: "Route templates, not URLs; unknown paths collapse into __unknown__.",
      unit: "reqps",
      queries: [
        {
          expr: 'sum by (method, route, status_code) (rate(http_request_duration_seconds_count{job="service", service="$service"}[$__rate_interval]))',
          legend: "{{method}} {{route}} {{status_code}}",
        },
      ],
    }),
    timeseries({
      title: "Errors (4xx, 5xx)",
      description: "Client errors (validation, conflicts, not found) and server errors, by route.",
      unit: "reqps",
      queries: [
        {
          expr: 'sum by (route, status_code) (rate(http_request_duration_seconds_count{job="service", service="$service", status_code=~"[45].."}[$__rate_interval]))',
          legend: "{{route}} {{status_code}}",
        },
      ],
    }),
    timeseries({
      title: "Latency by route",
      description: "Request duration by route template.",
      unit: "s",
      queries: [0.5, 0.99].map((q) => ({
        expr: `histogram_quantile(${q}, sum by (le, route) (rate(http_request_duration_seconds_bucket{job="service", service="$service"}[$__rate_interval])))`,
        legend: `p${q * 100} {{route}}`,
      })),
    }),
  ],
};

const consumer: RowSpec = {
  title: "Consumer ($queue)",
  size: GRAPHS,
  panels: [
    timeseries({
      title: "Outcomes by event type",
      description: "Deliveries handled per second by outcome and event type.",
      unit: "ops",
      queries: [
        {
          expr: 'sum by (outcome, type) (rate(consumer_messages_total{service="$service"}[$__rate_interval]))',
          legend: "{{type}} {{outcome}}",
        },
      ],
    }),
    timeseries({
      title: "Handling time",
      description: "From a handler's start to the delivery's outcome, commit included.",
      unit: "s",
      queries: [
        {
          expr: 'histogram_quantile(0.5, sum by (le) (rate(consumer_handle_seconds_bucket{service="$service"}[$__rate_interval])))',
          legend: "p50",
        },
        {
          expr: 'histogram_quantile(0.99, sum by (le, outcome) (rate(consumer_handle_seconds_bucket{service="$service"}[$__rate_interval])))',
          legend: "p99 {{outcome}}",
        },
      ],
    }),
    timeseries({
      title: "Queue depth and consumers",
      description: "The work queue, its retry tiers and parking lot, and how many consumers it has.",
      unit: "short",
      queries: [
        // The work queue and every queue named after it: its retry tiers ($queue.retry.1s, ...) and parking lot.
        {
          expr: String.raw`sum by (queue) (rabbitmq_queue_messages_ready{job="rabbitmq", queue=~"$queue(\\..*)?"})`,
          legend: "{{queue}} ready",
        },
        {
          expr: 'sum by (queue) (rabbitmq_queue_messages_unacked{job="rabbitmq", queue="$queue"})',
          legend: "{{queue}} unacked",
        },
        { expr: 'sum(rabbitmq_queue_consumers{job="rabbitmq", queue="$queue"})', legend: "consumers" },
      ],
    }),
  ],
};

// Backlog gauges are exported by both the service and its relay (they read the same table): max, not sum.
const outbox: RowSpec = {
  title: "Outbox and relay",
  size: GRAPHS,
  panels: [
    timeseries({
      title: "Backlog and failed rows",
      description: "From the service's outbox table (read at each scrape).",
      unit: "short",
      queries: [
        { expr: 'max(outbox_pending{service="$service"})', legend: "pending" },
        { expr: 'max(outbox_failed_rows{service="$service"})', legend: "failed (9)" },
        { expr: 'max(outbox_stale_sent{service="$service"})', legend: "sent, never done" },
      ],
    }),
    timeseries({
      title: "Oldest pending age",
      description: "Grows while nothing publishes.",
      unit: "s",
      queries: [
        { expr: 'max(outbox_oldest_pending_age_seconds{service="$service"})', legend: "oldest pending" },
        {
          expr: 'max(outbox_oldest_stale_sent_age_seconds{service="$service"})',
          legend: "oldest stale sent",
        },
      ],
    }),
    timeseries({
      title: "Claimed rows by path",
      description:
        "fast-path: right after the commit, in the service; sweep: the relay's (and the service's) loop.",
      unit: "ops",
      queries: [
        {
          expr: 'sum by (job, path) (rate(outbox_claimed_total{service="$service"}[$__rate_interval]))',
          legend: "{{job}} {{path}}",
        },
      ],
    }),
    timeseries({
      title: "Publishes by verdict",
      description:
        "confirmed, refused (unroutable, nacked) or unavailable (no answer: kept pending, no attempt spent).",
      unit: "ops",
      queries: [
        {
          expr: 'sum by (outcome) (rate(outbox_published_total{service="$service"}[$__rate_interval]))',
          legend: "{{outcome}}",
        },
        {
          expr: 'sum(rate(outbox_broker_unavailable_total{service="$service"}[$__rate_interval]))',
          legend: "batches without a broker",
        },
      ],
    }),
    timeseries({
      title: "Confirm latency",
      description: "Each message's publish to the broker's confirm, and the row's whole time in the outbox.",
      unit: "s",
      queries: [
        ...[0.5, 0.99].map((q) => ({
          expr: `histogram_quantile(${q}, sum by (le) (rate(outbox_confirm_seconds_bucket{service="$service"}[$__rate_interval])))`,
          legend: `publish -> confirm p${q * 100}`,
        })),
        {
          expr: 'histogram_quantile(0.99, sum by (le) (rate(outbox_time_in_outbox_seconds_bucket{service="$service"}[$__rate_interval])))',
          legend: "commit -> confirm p99",
        },
      ],
    }),
    timeseries({
      title: "Confirm window in use",
      description: "Publishes awaiting a confirm; stuck high when the broker stops answering.",
      unit: "short",
      queries: [
        { expr: 'sum by (job) (outbox_confirm_window_in_use{service="$service"})', legend: "{{job}}" },
      ],
    }),
  ],
};

/** The order service's saga: how long orders wait, and what the reconciliation finds. */
const orders: RowSpec = {
  title: "Orders",
  size: GRAPHS,
  panels: [
    timeseries({
      title: "Order -> final latency",
      description: "From creation to CONFIRMED or CANCELLED (a rejection), by final state.",
      unit: "s",
      queries: [0.5, 0.99].map((q) => ({
        expr: `histogram_quantile(${q}, sum by (le, status) (rate(order_final_seconds_bucket{service="$service"}[$__rate_interval])))`,
        legend: `p${q * 100} {{status}}`,
      })),
    }),
    timeseries({
      title: "Reconciliation",
      description:
        "Stale orders repaired, given up on (needs a person), and effects in a peer with no order here.",
      unit: "ops",
      queries: [
        {
          expr: 'sum by (kind) (rate(order_reconciliation_repairs_total{service="$service"}[$__rate_interval]))',
          legend: "repairs {{kind}}",
        },
        {
          expr: 'sum(rate(order_reconciliation_gave_up_total{service="$service"}[$__rate_interval]))',
          legend: "gave up",
        },
        {
          expr: 'sum by (source) (rate(order_reconciliation_orphans_total{service="$service"}[$__rate_interval]))',
          legend: "orphans {{source}}",
        },
      ],
    }),
    stat({
      title: "Invariant violations",
      description: "Found by the last stock-and-points invariant check (settled systems only); should be 0.",
      unit: "short",
      queries: [{ expr: 'max(order_invariant_violations{service="$service"})' }],
    }),
  ],
};

// Queried for the service and its relay, but only the service's registry collects process metrics.
const ONLY_SERVICE = "Only the service exports it; the relay's series stays empty.";

const processes: RowSpec = {
  title: "Process",
  size: GRAPHS,
  panels: [
    timeseries({
      title: "CPU",
      description: `CPU seconds used per second (1 = one core). ${ONLY_SERVICE}`,
      unit: "percentunit",
      queries: [
        {
          expr: 'rate(process_cpu_seconds_total{job=~"service|relay", service="$service"}[$__rate_interval])',
          legend: "{{job}}",
        },
      ],
    }),
    timeseries({
      title: "Event loop lag p99",
      description: `How late the event loop runs its callbacks: high while the process is blocked or busy. ${ONLY_SERVICE}`,
      unit: "s",
      queries: [
        {
          expr: 'nodejs_eventloop_lag_p99_seconds{job=~"service|relay", service="$service"}',
          legend: "{{job}}",
        },
      ],
    }),
    timeseries({
      title: "Resident memory",
      description: `The process's resident set size. ${ONLY_SERVICE}`,
      unit: "bytes",
      queries: [
        {
          expr: 'process_resident_memory_bytes{job=~"service|relay", service="$service"}',
          legend: "{{job}}",
        },
      ],
    }),
  ],
};

interface ServiceBoard {
  /** The service's work queue (its subscriptions.ts QUEUE): `$queue`. */
  queue: string;
  /** Rows of this service alone, placed after the outbox row. */
  ownRows: RowSpec[];
}

export const SERVICE_BOARDS: Record<ServiceName, ServiceBoard> = {
  order: { queue: "order.saga-replies", ownRows: [orders] },
  inventory: { queue: "inventory.order-events", ownRows: [] },
  points: { queue: "points.order-events", ownRows: [] },
};

export function serviceBoard(service: ServiceName): DashboardSpec {
  const { queue, ownRows } = SERVICE_BOARDS[service];
  return {
    uid: `orderflow-${service}`,
    title: `orderflow ${service}`,
    tags: ["orderflow", service],
    constants: [
      { name: "service", label: "Service", value: service },
      { name: "queue", label: "Work queue", value: queue },
    ],
    rows: [up, http, consumer, outbox, ...ownRows, processes],
  };
}
