// Which tests need the services running (system tests) and which drive the queues themselves, and the
// order files run in: component tests, then system tests, then the fault lab, which is the longest and
// the hardest on the stack, so nothing it might leave behind can reach another file.
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export const isSystemTest = (file: string): boolean =>
  /^(services|lab|control|load)\//.test(path.relative(root, file));

export const isFaultLab = (file: string): boolean =>
  /^lab\/test\/fault-lab\b/.test(path.relative(root, file));

/** 0 component, 1 system, 2 fault lab. */
export const runRank = (file: string): number => (isFaultLab(file) ? 2 : isSystemTest(file) ? 1 : 0);
