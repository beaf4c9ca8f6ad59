// Every integration test runs against the stack that `pnpm stack up` started; fail early and clearly if not.
import { openStack, type Stack, stackStatus } from "@orderflow/infra";

export async function requireHealthyStack(): Promise<Stack> {
  const s = openStack(undefined, false);
  const status = await stackStatus(s);
  // The services may be held stopped while component tests run: only the infrastructure must be healthy.
  if (!(status.postgres.healthy && status.redis.healthy && status.rabbitmq.healthy))
    throw new Error(`the local stack is not healthy (run \`pnpm stack up\`): ${status.problems.join("; ")}`);
  return s;
}
