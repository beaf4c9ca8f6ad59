// The only reader of the environment in the points service (see .env.example for each variable).
import { type CommonEnv, type RawEnv, readCommonEnv } from "@orderflow/service-runtime";

export function readEnv(env: RawEnv = process.env): CommonEnv {
  return readCommonEnv(env, "POINTS", 3003);
}
