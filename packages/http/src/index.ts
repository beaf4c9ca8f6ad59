export { type BaseAppOptions, CORRELATION_HEADER, createBaseApp } from "./base-app.ts";
export { installProblemHandlers, PROBLEM_CONTENT_TYPE, sendProblem } from "./error-handler.ts";
export { keyString, MAX_KEY_LENGTH, MAX_PARAM_LENGTH, uuidString } from "./fields.ts";
export { HttpProblem, PROBLEMS, type ProblemBody, type ProblemCode, problemBody } from "./problems.ts";
