// flagpost/testing: the conformance suites flagpost runs on its own storages and transports, for
// the author of another one (a DynamoDB Storage, an HTTP-API MailTransport). They register vitest
// tests; call one from a test file. See docs/testing.md.
import { importWithPeers } from "../../src/optional-peer.js";
import type { describeStorageConformance as DescribeStorage } from "./storage.suite.js";
import type { describeTransportConformance as DescribeTransport } from "./transport.suite.js";

export type { Capability, StorageHarness } from "./harness.js";
export type { DeliveredMessage, TransportHarness, TransportUnderTest } from "./transport.suite.js";

// vitest is an optional peer: loaded here so a missing install is named (see adapters/kysely/index.ts).
const suites = await importWithPeers("flagpost/testing", ["vitest"], async () => ({
  ...(await import("./storage.suite.js")),
  ...(await import("./transport.suite.js")),
}));

export const describeStorageConformance: typeof DescribeStorage = suites.describeStorageConformance;
export const describeTransportConformance: typeof DescribeTransport = suites.describeTransportConformance;
