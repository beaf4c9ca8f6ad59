// @orderflow/testkit: the fixtures every test suite shares (see README.md). Vitest's setup file
// (services-per-suite.ts) and sequencer (sequencer.ts) are named in vitest.config.ts, not exported here.
export { ensureChromium, launchChromium } from "./chromium.ts";
export { type CliProcess, runCli } from "./cli-process.ts";
export { childEnv, readTestkitEnv, type TestkitEnv } from "./env.ts";
export { type EventuallyOptions, eventually, observeFor } from "./eventually.ts";
export {
  type AttributeValue,
  type OtlpReceiver,
  type ReceivedSpan,
  SPAN_KIND,
  startOtlpReceiver,
} from "./otlp-receiver.ts";
export {
  type ConfirmedPublisher,
  type ConfirmedPublisherOptions,
  type OutgoingMessage,
  openConfirmedPublisher,
  withConfirmedPublisher,
} from "./publisher.ts";
export * from "./service-kit.ts";
export { requireHealthyStack } from "./stack-fixture.ts";
export { isFaultLab, isSystemTest, runRank } from "./test-kind.ts";
export { type Answer, startTestServer, type TestServer } from "./test-server.ts";
