// The k6 dashboard (infra/grafana/dashboards/k6.json): the results of the k6 load scenarios (load/k6), which
// compose's k6 service sends to Prometheus by remote write. Every series carries the run's `testid` tag
// (load/k6/lib/config.js), which the dashboard's picker selects.
// Names as k6's experimental-prometheus-rw output writes them: counters `k6_<metric>_total`, gauges
// `k6_<metric>`, rates `k6_<metric>_rate`, and a trend as one gauge per statistic of
// K6_PROMETHEUS_RW_TREND_STATS (`k6_http_req_duration_p99`, in seconds) over the run so far.
// `pnpm dashboards` writes the JSON; docs/dashboards.md says what each panel shows.
import { type DashboardSpec, type RowSpec, stat, timeseries } from "./grafana.ts";

/** The trend statistics the panels read; compose's K6_PROMETHEUS_RW_TREND_STATS must send each. */
export const K6_TREND_STATS = ["p(50)", "p(95)", "p(99)"] as const;

const RUN = 'testid=~"$testid"';
const ORDERS = `${RUN}, name="POST /orders"`;

/** `p(99)` -> the gauge k6 writes for it: k6_http_req_duration_p99. */
const durationStat = (stat: (typeof K6_TREND_STATS)[number]) =>
  `k6_http_req_duration_${stat.replace(/^p\((\d+)\)$/, "p$1")}`;

const RED_ABOVE_ZERO = {
  thresholds: {
    mode: "absolute",
    steps: [
      { color: "green", value: null },
      { color: "red", value: 1 },
    ],
  },
};

const run: RowSpec = {
  title: "Run",
  size: { w: 4, h: 5 },
  panels: [
    stat({
      title: "Orders/s",
      description:
        "POST /orders requests per second, failed ones included (the scenario's arrival rate, when it keeps up).",
      unit: "reqps",
      queries: [{ expr: `sum(rate(k6_http_reqs_total{${ORDERS}}[$__rate_interval]))` }],
    }),
    stat({
      title: "POST /orders p99",
      description: "The 99th percentile of POST /orders over the run so far, the worst of its status codes.",
      unit: "s",
      queries: [{ expr: `max(${durationStat("p(99)")}{${ORDERS}})` }],
    }),
    stat({
      title: "Orders failed",
      description: "POST /orders answered with an unexpected status or not at all, over the run so far.",
      unit: "short",
      queries: [{ expr: `sum(k6_http_reqs_total{${ORDERS}, expected_response="false"})` }],
      fieldDefaults: RED_ABOVE_ZERO,
    }),
    stat({
      title: "VUs",
      description: "Virtual users running: the arrival-rate scenario adds them while answers are slow.",
      unit: "short",
      queries: [{ expr: `sum(k6_vus{${RUN}})` }],
    }),
    stat({
      title: "Faults fired",
      description: "Faults the run's timeline fired through the control service's POST /faults.",
      unit: "short",
      queries: [{ expr: `sum(k6_faults_fired_total{${RUN}})` }],
    }),
    stat({
      title: "Audit violations",
      description:
        "What the audit after the run found: lost, duplicated, unexpected, unfinished or stuck orders. Written at the end of the run; anything above 0 fails it.",
      unit: "short",
      queries: [{ expr: `sum(k6_audit_violations_total{${RUN}})` }],
      fieldDefaults: RED_ABOVE_ZERO,
    }),
  ],
};

const requests: RowSpec = {
  title: "Requests",
  size: { w: 8, h: 8 },
  panels: [
    timeseries({
      title: "Requests/s by name and status",
      description: "Every request of the run by its name tag (POST /orders, POST /faults, GET /audit...).",
      unit: "reqps",
      queries: [
        {
          expr: `sum by (name, status) (rate(k6_http_reqs_total{${RUN}}[$__rate_interval]))`,
          legend: "{{name}} {{status}}",
        },
      ],
    }),
    timeseries({
      title: "Latency by name (run so far)",
      description:
        "Percentiles of http_req_duration over the run so far, the worst of each name's status codes: a fault shows as a step that stays.",
      unit: "s",
      queries: K6_TREND_STATS.map((q) => ({
        expr: `max by (name) (${durationStat(q)}{${RUN}})`,
        legend: `${q} {{name}}`,
      })),
    }),
    timeseries({
      title: "Failed requests/s",
      description: "Requests answered with an unexpected status or not at all (status 0), by name.",
      unit: "reqps",
      queries: [
        {
          expr: `sum by (name, status) (rate(k6_http_reqs_total{${RUN}, expected_response="false"}[$__rate_interval]))`,
          legend: "{{name}} {{status}}",
        },
      ],
    }),
  ],
};

const load: RowSpec = {
  title: "Load and faults",
  size: { w: 6, h: 8 },
  panels: [
    timeseries({
      title: "VUs",
      description: "Virtual users running and allocated.",
      unit: "short",
      queries: [
        { expr: `sum(k6_vus{${RUN}})`, legend: "running" },
        { expr: `sum(k6_vus_max{${RUN}})`, legend: "allocated" },
      ],
    }),
    timeseries({
      title: "Dropped iterations/s",
      description:
        "Orders the arrival-rate scenario could not start because every VU was busy: the offered load the system did not get.",
      unit: "ops",
      queries: [{ expr: `sum(rate(k6_dropped_iterations_total{${RUN}}[$__rate_interval]))` }],
    }),
    timeseries({
      title: "Faults by action",
      description: "Faults fired and refused by the control service, by action, over the run so far.",
      unit: "short",
      queries: [
        { expr: `sum by (action) (k6_faults_fired_total{${RUN}})`, legend: "fired {{action}}" },
        { expr: `sum by (action) (k6_faults_failed_total{${RUN}})`, legend: "refused {{action}}" },
      ],
    }),
    timeseries({
      title: "Checks passing",
      description: "The share of each check that passed over the run so far (order accepted, body, audit).",
      unit: "percentunit",
      queries: [{ expr: `min by (check) (k6_checks_rate{${RUN}})`, legend: "{{check}}" }],
    }),
  ],
};

export function k6Board(): DashboardSpec {
  return {
    uid: "orderflow-k6",
    title: "orderflow k6",
    tags: ["orderflow", "k6"],
    constants: [],
    pickers: [
      {
        name: "testid",
        label: "Test run",
        description: "The k6 runs by their testid tag (TESTID, or <scenario>-<start time>).",
        values: "label_values(k6_vus, testid)",
      },
    ],
    rows: [run, requests, load],
  };
}
