// flagpost/testing: the conformance suites flagpost runs on its own storages and transports, for
// the author of another one (a DynamoDB Storage, an HTTP-API MailTransport). They register vitest
// tests; call one from a test file. See docs/testing.md.
export { describeStorageConformance } from "./storage.suite.js";
export { type Capability, type StorageHarness } from "./harness.js";
export {
  describeTransportConformance,
  type DeliveredMessage,
  type TransportHarness,
  type TransportUnderTest,
} from "./transport.suite.js";
