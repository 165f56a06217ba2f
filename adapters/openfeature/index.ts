import { importWithPeers } from "../../src/optional-peer.js";
import type { FlagpostProvider as Provider, toFlagContext as ToFlagContext } from "./flagpost-provider.js";

export type { FlagpostProviderOptions, FlagpostProviderSource } from "./flagpost-provider.js";

// @openfeature/server-sdk is an optional peer: loaded here so a missing install is named (see adapters/kysely/index.ts).
const adapter = await importWithPeers(
  "flagpost/openfeature",
  ["@openfeature/server-sdk", "@openfeature/core"],
  () => import("./flagpost-provider.js"),
);

export const FlagpostProvider: typeof Provider = adapter.FlagpostProvider;
export type FlagpostProvider = Provider;
export const toFlagContext: typeof ToFlagContext = adapter.toFlagContext;
