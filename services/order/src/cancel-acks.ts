import { REPLIES } from "@orderflow/contracts";

/** The replies an order.cancelled waits for (inventory.released, points.reversed) before its row is done. */
export const CANCEL_ACKS = REPLIES["order.cancelled"];
