// What the control service, the demo and tests use of the fault lab.
export * from "./faults/book.ts";
