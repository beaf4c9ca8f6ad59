// The CPU a ladder step cost: the stack's (every process tree under test) per final order and in cores,
// and how busy the whole machine was. The step's window runs from its first request until its orders
// are final (or its grace ends), so a backlog's work counts in the step that made it. It shows where the
// machine saturates: from there on, a higher rate is kept up only because work is shared by more
// orders (batches grow), and every added order waits for a core. The context switches per order show
// how many times an order puts a thread of the stack to sleep and wakes it (or preempts it).
import { cpuDelta, cpuSeconds, machineCpuSeconds, switchSnapshot, threadCountsBetween } from "./cpu.ts";

export interface StepCpu {
  /** The stack's CPU per final order of the step, ms. */
  stackMsPerOrder: number;
  /** The stack's CPU over the step's window, in cores (CPU seconds per second). */
  stackCores: number;
  /** The machine's busy share over the window, 0..1 (every process and the kernel). */
  machineBusy: number;
  /** Context switches of every thread of the stack per final order of the step. */
  stackSwitchesPerOrder: number;
}

/** Runs `step`, returning its result with the CPU it cost (`final`: orders that became final). */
export async function withStepCpu<S extends { final: number }>(
  groups: Record<string, number[]>,
  step: () => Promise<S>,
): Promise<S & { cpu: StepCpu }> {
  const before = cpuSeconds(groups);
  const switchesBefore = switchSnapshot(groups);
  const machineBefore = machineCpuSeconds();
  const t0 = performance.now();
  const s = await step();
  const wallSeconds = (performance.now() - t0) / 1000;
  const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  const stack = sum(cpuDelta(before, cpuSeconds(groups)));
  const switches = sum(threadCountsBetween(switchesBefore, switchSnapshot(groups)));
  const machine = machineCpuSeconds();
  return {
    ...s,
    cpu: stepCpu(
      stack,
      machine.busy - machineBefore.busy,
      machine.total - machineBefore.total,
      wallSeconds,
      s.final,
      switches,
    ),
  };
}

/** Pure: CPU seconds and context switches over a window of `wallSeconds` -> the step's figures (NaN where undefined). */
export function stepCpu(
  stackSeconds: number,
  machineBusySeconds: number,
  machineTotalSeconds: number,
  wallSeconds: number,
  final: number,
  stackSwitches: number,
): StepCpu {
  return {
    stackMsPerOrder: final > 0 ? (stackSeconds * 1000) / final : Number.NaN,
    stackCores: wallSeconds > 0 ? stackSeconds / wallSeconds : Number.NaN,
    machineBusy: machineTotalSeconds > 0 ? machineBusySeconds / machineTotalSeconds : Number.NaN,
    stackSwitchesPerOrder: final > 0 ? stackSwitches / final : Number.NaN,
  };
}
