// The order service's database: its generated Prisma client (service-runtime's prismaDatabase).
import { prismaDatabase } from "@orderflow/service-runtime";
import { type Prisma, PrismaClient } from "../generated/prisma/client.ts";

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;
export const database = prismaDatabase<Db, Tx>(PrismaClient);
export const { createDb } = database;
