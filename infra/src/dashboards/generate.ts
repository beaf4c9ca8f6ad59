// The dashboard files the definitions produce, as text, for `pnpm dashboards` to write and a test to
// compare with the committed files: one per service and the k6 one. The overview (overview.json) is not
// generated: it is edited as JSON.
import { SERVICE_NAMES } from "../services.ts";
import { dashboard } from "./grafana.ts";
import { jsonText } from "./json-text.ts";
import { k6Board } from "./k6-board.ts";
import { serviceBoard } from "./service-board.ts";

/** Where Grafana's provisioning reads the dashboards from, relative to the repository root. */
export const DASHBOARDS_DIR = "infra/grafana/dashboards";

export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  text: string;
}

export const generatedDashboards = (): GeneratedFile[] => [
  ...SERVICE_NAMES.map((s) => ({
    path: `${DASHBOARDS_DIR}/${s}.json`,
    text: jsonText(dashboard(serviceBoard(s))),
  })),
  { path: `${DASHBOARDS_DIR}/k6.json`, text: jsonText(dashboard(k6Board())) },
];
