// A partition fault's target, parsed the same way by the local stack's fault book and by compose's.
import { PARTITION_KINDS, type PartitionKind } from "@orderflow/infra";
import { badRequest } from "./request.ts";

/**
 * "halves", "isolate-node:rabbit-2"...: a partition kind and, optionally, the name of the node it singles
 * out, which each fault book resolves against its own nodes.
 */
export function parsePartitionTarget(target: string): { kind: PartitionKind; node: string | undefined } {
  const [kind, node] = target.split(":", 2) as [string, string | undefined];
  if (!(PARTITION_KINDS as readonly string[]).includes(kind))
    throw badRequest(`unknown partition "${kind}"; partitions: ${PARTITION_KINDS.join(", ")}`);
  if (node !== undefined && kind === "majorities-ring")
    throw badRequest("majorities-ring singles out no node");
  return { kind: kind as PartitionKind, node };
}
