// Business rules more than one service (and the audit) must agree on.

/** Points for a confirmed order: 1 point per whole currency unit of its total (cents / 100, rounded down). */
export const pointsFor = (totalCents: number): number => Math.floor(totalCents / 100);
