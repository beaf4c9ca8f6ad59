// Prisma's own schema engine, the WebAssembly build shipped on npm, driven through adapter-pg. The native
// engine Prisma's CLI downloads at install time is not needed: this one makes and checks
// migrations offline (db:new, db:check) and is the oracle of the runner's tests.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import { CharMarkingPool, withCharColumns } from "./char-columns.ts";
import { withWholeScripts } from "./whole-scripts.ts";

export interface MigrationList {
  baseDir: string;
  lockfile: { path: string; content: string | null };
  shadowDbInitScript: string;
  migrationDirectories: {
    path: string;
    migrationFile: { path: string; content: { tag: "ok"; value: string } };
  }[];
}

const FILTERS = { externalTables: [] as string[], externalEnums: [] as string[] };

export interface SchemaFile {
  path: string;
  content: string;
}

export type DiffTarget =
  | { tag: "schemaDatasource"; files: SchemaFile[]; configDir: string }
  | { tag: "schemaDatamodel"; files: SchemaFile[] };

export interface PrismaEngine {
  /** With `script`, `stdout` is the SQL that takes `from` to `to`; with `exitCode`, 2 means they differ. */
  diff(params: {
    from: DiffTarget;
    to: DiffTarget;
    script: boolean;
    exitCode: boolean;
    filters: typeof FILTERS;
  }): Promise<{ exitCode: number; stdout: string | null }>;
  applyMigrations(input: { migrationsList: MigrationList; filters: typeof FILTERS }): Promise<{
    appliedMigrationNames: string[];
  }>;
  diagnoseMigrationHistory(input: {
    migrationsList: MigrationList;
    optInToShadowDatabase: boolean;
    filters: typeof FILTERS;
  }): Promise<{
    editedMigrationNames: string[];
    failedMigrationNames: string[];
    hasMigrationsTable: boolean;
    history: unknown;
  }>;
  free(): void;
}

/** An engine with its own connection pool: `close` frees both. */
export interface OpenEngine extends PrismaEngine {
  close(): Promise<void>;
}

export function migrationList(dir: string): MigrationList {
  const lock = path.join(dir, "migration_lock.toml");
  return {
    baseDir: dir,
    lockfile: {
      path: "migration_lock.toml",
      content: fs.existsSync(lock) ? fs.readFileSync(lock, "utf8") : null,
    },
    shadowDbInitScript: "",
    migrationDirectories: fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, "migration.sql")))
      .map((e) => e.name)
      .sort()
      .map((name) => ({
        path: name,
        migrationFile: {
          path: "migration.sql",
          content: {
            tag: "ok" as const,
            value: fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8"),
          },
        },
      })),
  };
}

export const noFilters = FILTERS;

interface WasmApi {
  instantiate(
    bytes: Uint8Array,
    imports: object,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
}
type EngineModule = {
  __wbg_set_wasm(exports: Record<string, unknown>): void;
  SchemaEngine: { new: (o: object, log: (m: string) => void, adapter: object) => Promise<PrismaEngine> };
};

let loaded: Promise<EngineModule> | undefined;

/**
 * The package targets bundlers (`import * as wasm from "./x.wasm"`), so Node instantiates it by hand,
 * once per process (the glue module keeps a single instance).
 */
function loadEngineModule(): Promise<EngineModule> {
  loaded ??= (async () => {
    // Where the engine reports a Rust panic's message (Prisma's CLI sets the same global).
    const g = globalThis as {
      PRISMA_WASM_PANIC_REGISTRY?: { message: string; get(): string; set_message(m: string): void };
    };
    g.PRISMA_WASM_PANIC_REGISTRY ??= {
      message: "",
      get() {
        return this.message;
      },
      set_message(m: string) {
        this.message = `RuntimeError: ${m}`;
      },
    };
    const require = createRequire(import.meta.url);
    const dir = path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg"));
    const bg = (await import(path.join(dir, "schema_engine_bg.js"))) as EngineModule;
    const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const { instance } = await wasm.instantiate(fs.readFileSync(path.join(dir, "schema_engine_bg.wasm")), {
      "./schema_engine_bg.js": bg,
    });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bg;
  })();
  return loaded;
}

export async function openPrismaEngine(connectionString: string): Promise<OpenEngine> {
  const bg = await loadEngineModule();
  const u = new URL(connectionString);
  // Host, port and the rest given one by one: with a connectionString, pg lets it override `database`.
  const pool = new CharMarkingPool({
    host: u.hostname,
    port: Number(u.port),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: decodeURIComponent(u.pathname.slice(1)),
  });
  const adapter = bindMigrationAwareSqlAdapterFactory(withWholeScripts(withCharColumns(new PrismaPg(pool))));
  const engine = await bg.SchemaEngine.new({ datamodels: undefined }, () => {}, adapter);
  // Methods, not properties, on the wasm object: bind each one used through the wrapper.
  return {
    diff: (p) => engine.diff(p),
    applyMigrations: (i) => engine.applyMigrations(i),
    diagnoseMigrationHistory: (i) => engine.diagnoseMigrationHistory(i),
    free: () => engine.free(),
    close: async () => {
      engine.free();
      await pool.end();
    },
  };
}
