// The one definition of an order whose saga has not finished, shared by reconciliation (which repairs
// those that stay so too long) and the invariant check (which waits for those still moving).

/**
 * PENDING (its reservation not answered), CONFIRMED without its points recorded (the grant not
 * answered), or CANCELLED with releases not yet acknowledged. SQL over `orders`, parenthesised.
 */
export const UNFINISHED_ORDER = `(status = 'PENDING'
       OR (status = 'CONFIRMED' AND points_granted IS NULL)
       OR (status = 'CANCELLED' AND cardinality(cancel_acks) > 0))`;
