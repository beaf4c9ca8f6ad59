export { pgTransaction, type SqlTx } from "./sql-tx.ts";
