// `pnpm stack chaos <action> [target] [--for SECONDS]`: one fault on the local stack, through the same
// controller as the control service's POST /faults. A timed fault is undone before the command exits (at
// once on Ctrl-C).
import { parseCli } from "@orderflow/config";
import { openStack, readInfraEnv } from "@orderflow/infra";
import { createFaultController, FAULT_ACTIONS, type FaultRequest } from "./book.ts";
import { FaultRequestError, parseFaultRequest } from "./request.ts";

const USAGE = `usage: pnpm stack chaos <action> [target] [--for SECONDS]
  --for: undo it after that long (1..600 s) and wait for that; Ctrl-C undoes it at once
${Object.values(FAULT_ACTIONS)
  .map((a) => `    ${a.usage}`)
  .join("\n")}`;

const log = (m: string) => process.stderr.write(`[stack] ${m}\n`);

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const { values, positionals, fail } = parseCli(
    { usage: USAGE, options: { for: { type: "string" } }, positionals: { max: 2 } },
    argv,
  );
  const [action, target] = positionals;
  if (!action) return fail("chaos needs an <action>");
  const durationS = values.for === undefined ? undefined : Number(values.for);
  if (durationS !== undefined && !Number.isFinite(durationS))
    return fail(`--for must be a number of seconds, got "${values.for}"`);
  let request: FaultRequest;
  try {
    request = parseFaultRequest({ action, target, durationS }, FAULT_ACTIONS);
  } catch (e) {
    if (!(e instanceof FaultRequestError)) throw e;
    return fail(e.message.startsWith(action) ? `chaos ${e.message}` : e.message);
  }
  const faults = createFaultController(openStack(readInfraEnv(), false));
  const fault = await faults.apply(request);
  process.stdout.write(`${JSON.stringify(fault)}\n`);
  if (!fault.undoAt) return 0;
  log(`${fault.action} ${fault.target}: undoing at ${fault.undoAt} (Ctrl-C undoes it now)`);
  for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => void faults.close());
  const undone = await faults.undone(fault.id);
  process.stdout.write(`${JSON.stringify(undone)}\n`);
  return undone?.undoError ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`[stack] ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
