// Compose interpolation cannot percent-encode, so the secrets of .env reach URLs and command lines as
// written. infra/compose/check-secrets.sh refuses the ones that would break them; these tests run it (and
// the two scripts that source it) as real bash processes.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { describe, expect, test } from "vitest";
import { repoRoot } from "../src/index.ts";
import { composeService, composeText, readCompose, readRepoFile } from "./compose-file.ts";

const CHECKER = path.join(repoRoot, "infra/compose/check-secrets.sh");
const RULE = "A-Z a-z 0-9 . _ ~ -";
const generated = () => randomBytes(24).toString("hex"); // what `openssl rand -hex 24` prints

function runBash(args: string[], env: Record<string, string>) {
  const r = spawnSync("bash", args, {
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", ...env },
    encoding: "utf8",
    timeout: 20_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("check-secrets.sh", () => {
  test("generated secrets pass, and it says how many it checked", () => {
    const r = runBash([CHECKER, "ORDER_DB_PASSWORD", "REDIS_PASSWORD"], {
      ORDER_DB_PASSWORD: generated(),
      REDIS_PASSWORD: `Ab.${generated()}_~-`,
    });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toBe("check-secrets: 2 secrets ok\n");
  });

  test.each([
    ["an @", `pass@${generated()}`, "has a character other than"],
    ["a /", `pass/${generated()}`, "has a character other than"],
    ["a :", `pass:${generated()}`, "has a character other than"],
    ["a #", `pass#${generated()}`, "has a character other than"],
    ["a %", `pass%40${generated()}`, "has a character other than"],
    ["a space", `pass word ${generated()}`, "has a character other than"],
    ["a leading -", `-${generated()}`, "starts with '-'"],
    ["15 characters", "abcdefghij12345", "is 15 characters long"],
    ["129 characters", "a".repeat(129), "is 129 characters long"],
    ["nothing", "", "is empty or not set"],
  ])("a secret with %s is refused, naming the variable and what is allowed", (_what, value, reason) => {
    const r = runBash([CHECKER, "ORDER_BROKER_PASSWORD"], { ORDER_BROKER_PASSWORD: value });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`check-secrets: ORDER_BROKER_PASSWORD ${reason}`);
    expect(r.stderr).toContain(`16-128 characters from ${RULE}, not starting with '-'`);
    expect(r.stderr).toContain("openssl rand -hex 24");
    if (value) expect(r.stderr).not.toContain(value);
  });

  test("every bad variable is named in one run, and a good one is not", () => {
    const r = runBash([CHECKER, "POSTGRES_ADMIN_PASSWORD", "RABBITMQ_ERLANG_COOKIE", "REDIS_PASSWORD"], {
      POSTGRES_ADMIN_PASSWORD: "p@ss:word/with#all-of-them",
      REDIS_PASSWORD: generated(),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("POSTGRES_ADMIN_PASSWORD has a character other than");
    expect(r.stderr).toContain("RABBITMQ_ERLANG_COOKIE is empty or not set");
    expect(r.stderr).not.toContain("REDIS_PASSWORD");
  });

  test("called without names or with a name that is not a variable, it says so instead of passing", () => {
    expect(runBash([CHECKER], {})).toMatchObject({ code: 2, stderr: expect.stringContaining("usage:") });
    const r = runBash([CHECKER, "NOT-A-NAME"], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('"NOT-A-NAME" is not a variable name');
  });

  test("sourced by another script, require_secrets stops that script", () => {
    const script = `set -euo pipefail; source ${CHECKER}; require_secrets TOKEN_A; echo reached`;
    expect(runBash(["-c", script], { TOKEN_A: generated() })).toMatchObject({ code: 0, stdout: "reached\n" });
    expect(runBash(["-c", script], { TOKEN_A: "bad@value-but-long-enough" })).toMatchObject({
      code: 1,
      stdout: "",
    });
  });
});

describe("the scripts that receive secrets check them before using them", () => {
  const good = {
    ORDER_DB_PASSWORD: generated(),
    INVENTORY_DB_PASSWORD: generated(),
    POINTS_DB_PASSWORD: generated(),
    RABBITMQ_ERLANG_COOKIE: generated(),
    ORDER_BROKER_PASSWORD: generated(),
    INVENTORY_BROKER_PASSWORD: generated(),
    POINTS_BROKER_PASSWORD: generated(),
  };
  // Only the checker spoke: had the script gone on, psql or rabbitmqctl would have added their own errors.
  const onlyCheckerLines = (stderr: string) =>
    expect(
      stderr
        .trim()
        .split("\n")
        .filter((l) => !l.startsWith("check-secrets: ")),
    ).toEqual([]);

  test("init-databases.sh exits on a bad database password before it runs psql", () => {
    const r = runBash([path.join(repoRoot, "infra/postgres/init-databases.sh")], {
      ...good,
      INVENTORY_DB_PASSWORD: "-leading-dash-0123456789",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("INVENTORY_DB_PASSWORD starts with '-'");
    onlyCheckerLines(r.stderr);
  });

  test("rabbitmq setup.sh exits on a bad broker password before it talks to a node", () => {
    const r = runBash([path.join(repoRoot, "infra/rabbitmq/compose/setup.sh")], {
      ...good,
      POINTS_BROKER_PASSWORD: "points#secret#0123456789",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("POINTS_BROKER_PASSWORD has a character other than");
    onlyCheckerLines(r.stderr);
  });
});

describe("docker-compose.yml checks every secret before a container receives it", () => {
  const compose = readCompose();
  const text = composeText();
  const checkEnv = composeService(compose, "check-env");
  const checked = new Set(checkEnv.command ?? []);
  const inUrls = new Set([...text.matchAll(/:\/\/[^:/\s]*:\$\{([A-Z0-9_]+)/g)].map((m) => m[1] as string));
  const secrets = new Set(
    // Secrets are the required variables (${NAME:?...}); an optional setting (${NAME:-}) is not one.
    [...text.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1] as string).filter((v) => v !== "ADMIN_TOKEN"),
  );

  test("check-env runs the checker on every secret of .env but ADMIN_TOKEN", () => {
    expect(checkEnv.entrypoint).toEqual(["bash", "/etc/orderflow/check-secrets.sh"]);
    expect(checkEnv.volumes).toContain("./infra/compose/check-secrets.sh:/etc/orderflow/check-secrets.sh:ro");
    expect(checkEnv.restart).toBe("no");
    expect(inUrls.size).toBeGreaterThanOrEqual(7);
    for (const v of [...inUrls, ...secrets]) {
      expect(checked, `check-env does not check ${v}`).toContain(v);
      expect(checkEnv.environment?.[v]).toBe(`\${${v}:?see .env.example}`);
    }
  });

  test("every container given a secret starts only after check-env succeeded", () => {
    const reaches = (name: string, seen = new Set<string>()): boolean => {
      if (seen.has(name)) return false;
      seen.add(name);
      const deps = composeService(compose, name).depends_on ?? {};
      if (deps["check-env"]?.condition === "service_completed_successfully") return true;
      return Object.keys(deps).some((d) => reaches(d, seen));
    };
    const receivers = Object.entries(compose.services)
      .filter(
        ([name, s]) => name !== "check-env" && /\$\{(?!ADMIN_TOKEN)[A-Z0-9_]+:\?/.test(JSON.stringify(s)),
      )
      .map(([name]) => name);
    expect(receivers.length).toBeGreaterThan(10);
    for (const name of receivers) expect(reaches(name), `${name} does not wait for check-env`).toBe(true);
  });

  test(".env.example states the checker's rule and how to generate a secret", () => {
    const checker = readRepoFile("infra/compose/check-secrets.sh");
    const min = /^SECRET_MIN_LENGTH=(\d+)$/m.exec(checker)?.[1];
    const max = /^SECRET_MAX_LENGTH=(\d+)$/m.exec(checker)?.[1];
    const example = readRepoFile(".env.example");
    expect(example).toContain(`${min}-${max} characters from ${RULE}`);
    expect(example).toContain("openssl rand -hex 24");
  });
});
