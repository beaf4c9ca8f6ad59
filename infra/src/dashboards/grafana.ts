// Grafana's dashboard JSON (schema 39) built from a short description: rows of panels, each panel a
// title, a unit and its PromQL. Ids, refIds and grid positions are derived here, so a definition never
// spells them out and adding a panel cannot leave two with one id or one outside the grid.

/** Grafana's placeholder for the templated data source; built, so it does not read as a template string. */
const DATASOURCE_VARIABLE = ["$", "{datasource}"].join("");
const DATASOURCE = { type: "prometheus", uid: DATASOURCE_VARIABLE };
/** The data source provisioned by infra/grafana/provisioning/datasources/orderflow.yml. */
const PROMETHEUS_UID = "prometheus";
const GRID_COLUMNS = 24;

export interface Query {
  expr: string;
  /** Grafana's legend template; its automatic legend when absent. */
  legend?: string;
}

export interface PanelSpec {
  type: "stat" | "timeseries";
  title: string;
  description: string;
  unit: string;
  queries: Query[];
  /** Further field defaults (value mappings, thresholds), after the unit. */
  fieldDefaults?: Record<string, unknown>;
}

export interface RowSpec {
  title: string;
  /** Every panel of the row has this size; they fill the row left to right and wrap at 24 columns. */
  size: { w: number; h: number };
  panels: PanelSpec[];
}

/**
 * A picker of label values the queries use as `$name` in a regex match (`label=~"$name"`): several
 * values or All, which matches every value (`.*`), the default.
 */
export interface PickerSpec {
  name: string;
  label: string;
  description: string;
  /** Where the values come from: `label_values(metric, label)`. */
  values: string;
}

export interface DashboardSpec {
  uid: string;
  title: string;
  tags: string[];
  /** Hidden constants the queries use as `$name`. */
  constants: { name: string; label: string; value: string }[];
  /** Pickers shown above the panels, after the data source. */
  pickers?: PickerSpec[];
  rows: RowSpec[];
}

export const stat = (p: Omit<PanelSpec, "type">): PanelSpec => ({ type: "stat", ...p });
export const timeseries = (p: Omit<PanelSpec, "type">): PanelSpec => ({ type: "timeseries", ...p });

/** A stat showing 0 as a red DOWN and 1 as a green UP, for `up` series. */
export const UP_DOWN = {
  mappings: [
    {
      type: "value",
      options: {
        "0": { text: "DOWN", color: "red", index: 0 },
        "1": { text: "UP", color: "green", index: 1 },
      },
    },
  ],
  thresholds: {
    mode: "absolute",
    steps: [
      { color: "red", value: null },
      { color: "green", value: 1 },
    ],
  },
};

const TIMESERIES_STYLE = { drawStyle: "line", lineWidth: 1, fillOpacity: 10, showPoints: "never" };

const TIMESERIES_OPTIONS = {
  legend: { displayMode: "list", placement: "bottom", showLegend: true },
  tooltip: { mode: "multi", sort: "desc" },
};

const STAT_OPTIONS = {
  reduceOptions: { calcs: ["lastNotNull"], fields: "", values: false },
  colorMode: "value",
  graphMode: "area",
  textMode: "auto",
};

const target = (q: Query, i: number) => ({
  refId: String.fromCharCode(65 + i),
  datasource: DATASOURCE,
  expr: q.expr,
  legendFormat: q.legend ?? "__auto",
  range: true,
  instant: false,
});

type GridPos = { h: number; w: number; x: number; y: number };

function panel(p: PanelSpec, id: number, gridPos: GridPos) {
  const custom = p.type === "timeseries" ? { custom: TIMESERIES_STYLE } : {};
  return {
    id,
    type: p.type,
    title: p.title,
    description: p.description,
    datasource: DATASOURCE,
    gridPos,
    targets: p.queries.map(target),
    fieldConfig: { defaults: { unit: p.unit, ...p.fieldDefaults, ...custom }, overrides: [] },
    options: p.type === "timeseries" ? TIMESERIES_OPTIONS : STAT_OPTIONS,
  };
}

/** Rows and their panels in order, numbered from 1, each row a full-width header above its panels. */
function layout(rows: RowSpec[]): object[] {
  const out: object[] = [];
  let y = 0;
  for (const row of rows) {
    const gridPos = { h: 1, w: GRID_COLUMNS, x: 0, y };
    out.push({ id: out.length + 1, type: "row", title: row.title, collapsed: false, gridPos, panels: [] });
    y += 1;
    const perLine = Math.floor(GRID_COLUMNS / row.size.w);
    row.panels.forEach((p, i) => {
      const x = (i % perLine) * row.size.w;
      const top = y + Math.floor(i / perLine) * row.size.h;
      out.push(panel(p, out.length + 1, { h: row.size.h, w: row.size.w, x, y: top }));
    });
    y += Math.ceil(row.panels.length / perLine) * row.size.h;
  }
  return out;
}

const constant = (c: DashboardSpec["constants"][number]) => ({
  name: c.name,
  label: c.label,
  type: "constant",
  query: c.value,
  hide: 2,
  current: { selected: false, text: c.value, value: c.value },
  options: [{ selected: true, text: c.value, value: c.value }],
});

const picker = (p: PickerSpec) => ({
  name: p.name,
  label: p.label,
  description: p.description,
  type: "query",
  datasource: DATASOURCE,
  definition: p.values,
  query: { query: p.values, refId: "PrometheusVariableQueryEditor-VariableQuery" },
  // Read again when the time range changes, so a run that started since shows up.
  refresh: 2,
  multi: true,
  includeAll: true,
  allValue: ".*",
  current: { selected: true, text: ["All"], value: ["$__all"] },
  options: [],
  regex: "",
  sort: 0,
  hide: 0,
});

/**
 * The whole dashboard: refreshed every 5 s over the last 15 minutes (the stack's scrape and rule
 * pace), a shared crosshair, links to the other orderflow dashboards, and every query on the
 * templated data source, so a Grafana with another Prometheus can pick it.
 */
export function dashboard(d: DashboardSpec): object {
  return {
    uid: d.uid,
    title: d.title,
    tags: d.tags,
    timezone: "browser",
    editable: true,
    schemaVersion: 39,
    version: 1,
    refresh: "5s",
    graphTooltip: 1,
    time: { from: "now-15m", to: "now" },
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: "grafana", uid: "-- Grafana --" },
          enable: true,
          hide: true,
          iconColor: "rgba(0, 211, 255, 1)",
          name: "Annotations & Alerts",
          type: "dashboard",
        },
      ],
    },
    links: [
      {
        type: "dashboards",
        tags: ["orderflow"],
        asDropdown: true,
        title: "orderflow",
        includeVars: false,
        keepTime: true,
      },
    ],
    templating: {
      list: [
        {
          name: "datasource",
          label: "Data source",
          type: "datasource",
          query: "prometheus",
          current: { selected: false, text: "Prometheus", value: PROMETHEUS_UID },
          hide: 0,
          refresh: 1,
          regex: "",
          options: [],
        },
        ...d.constants.map(constant),
        ...(d.pickers ?? []).map(picker),
      ],
    },
    panels: layout(d.rows),
  };
}
