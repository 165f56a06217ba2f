export {
  FlagpostProvider,
  toFlagContext,
  type FlagpostProviderOptions,
  type FlagpostProviderSource,
} from "./flagpost-provider.js";
