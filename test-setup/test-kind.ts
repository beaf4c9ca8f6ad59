// Which tests need the services running (system tests) and which drive the queues themselves.
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export const isSystemTest = (file: string): boolean =>
  /^(services|load-tests)\//.test(path.relative(root, file));
