// The alert rules (infra/prometheus/rules) as promtool sees them, and as a person paged by one needs
// them: every rule says what is wrong (summary) and where to read on (a runbook that exists), and every
// alert is unit-tested both firing and silent. Needs promtool (Debian's prometheus, installed by
// `pnpm stack up` as root), not the running stack.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { parse } from "yaml";
import { repoRoot } from "../src/index.ts";

const RULES_DIR = path.join(repoRoot, "infra/prometheus/rules");
const RULES = path.join(RULES_DIR, "orderflow.rules.yml");
const RULE_TESTS = path.join(RULES_DIR, "orderflow.rules.test.yml");

// The names other parts of the project rely on (the fault lab reads BrokerNodeDown from Alertmanager).
const EXPECTED_ALERTS = [
  "BrokerNodeDown",
  "QuorumQueueBelowThreeMembers",
  "OutboxBacklogGrowing",
  "OutboxOldestPendingTooOld",
  "OutboxRowsFailed",
  "OutboxSentNeverDone",
  "ParkingLotNotEmpty",
  "ConsumerNotConsuming",
  "PublishConfirmsFailing",
  "ReconciliationRepairing",
  "InvariantViolated",
  "ServiceDown",
  "RelayDown",
];

interface AlertRule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RulesFile {
  groups: { name: string; rules: AlertRule[] }[];
}
interface RuleTestsFile {
  rule_files: string[];
  tests: {
    alert_rule_test?: { alertname: string; eval_time: string; exp_alerts?: unknown[] | null }[];
  }[];
}

const alertRules = (): (AlertRule & { alert: string })[] =>
  (parse(fs.readFileSync(RULES, "utf8")) as RulesFile).groups
    .flatMap((g) => g.rules)
    .filter((r): r is AlertRule & { alert: string } => typeof r.alert === "string");

function promtool(args: string[]): { status: number | null; output: string } {
  const r = spawnSync("promtool", args, { cwd: RULES_DIR, encoding: "utf8", timeout: 60_000 });
  if (r.error)
    throw new Error(
      `promtool did not run (${r.error.message}): install Debian's prometheus package (pnpm stack up does, as root)`,
    );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

// GitHub's anchor for a markdown heading: lower case, punctuation dropped, spaces to dashes.
const anchorOf = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

function anchorsIn(markdownFile: string): Set<string> {
  const headings = fs
    .readFileSync(markdownFile, "utf8")
    .split("\n")
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => anchorOf(l.replace(/^#+ /, "")));
  return new Set(headings);
}

describe("promtool", () => {
  test("accepts the rules file", () => {
    const r = promtool(["check", "rules", RULES]);
    if (r.status !== 0) expect.fail(`promtool check rules failed:\n${r.output}`);
    expect(r.output).toContain(`SUCCESS: ${alertRules().length} rules found`);
  });

  test("passes every unit test of the rules", () => {
    const r = promtool(["test", "rules", RULE_TESTS]);
    if (r.status !== 0) expect.fail(`promtool test rules failed:\n${r.output}`);
    expect(r.output).toContain("SUCCESS");
  });
});

describe("every alert rule", () => {
  test("is one of the alerts the project names, each defined once", () => {
    const names = alertRules().map((r) => r.alert);
    expect([...names].sort()).toEqual([...EXPECTED_ALERTS].sort());
  });

  test.each(alertRules().map((r) => [r.alert, r] as const))(
    "%s has a severity, a templated summary and a runbook",
    (_name, rule) => {
      expect(["critical", "warning"]).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary, "summary").toMatch(/\{\{ *\$(labels\.\w+|value)/);
      expect(rule.annotations?.runbook, "runbook").toMatch(/^docs\/[\w/.-]+\.md(#[\w-]+)?$/);
    },
  );

  test.each(alertRules().map((r) => [r.alert, r.annotations?.runbook ?? ""] as const))(
    "%s's runbook %s exists in the repository",
    (_name, runbook) => {
      const [file = "", anchor] = runbook.split("#");
      const full = path.join(repoRoot, file);
      expect(fs.existsSync(full), `${file} is missing`).toBe(true);
      if (anchor !== undefined) expect([...anchorsIn(full)]).toContain(anchor);
    },
  );

  test("is unit-tested both firing and not firing", () => {
    const tests = parse(fs.readFileSync(RULE_TESTS, "utf8")) as RuleTestsFile;
    expect(tests.rule_files).toContain(path.basename(RULES));
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const missing = alertRules().flatMap((r) => {
      const mine = cases.filter((c) => c.alertname === r.alert);
      const gaps: string[] = [];
      if (!mine.some((c) => (c.exp_alerts ?? []).length > 0)) gaps.push(`${r.alert}: no firing case`);
      if (!mine.some((c) => (c.exp_alerts ?? []).length === 0)) gaps.push(`${r.alert}: no silent case`);
      return gaps;
    });
    expect(missing).toEqual([]);
  });

  test("documented in docs/alerts.md, one section each", () => {
    const anchors = anchorsIn(path.join(repoRoot, "docs/alerts.md"));
    expect(EXPECTED_ALERTS.filter((a) => !anchors.has(anchorOf(a)))).toEqual([]);
  });
});
