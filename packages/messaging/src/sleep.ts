/** Resolves after `ms`; the timer does not keep the process alive. */
export const sleep = (ms: number): Promise<void> => new Promise<void>((r) => setTimeout(r, ms).unref?.());
