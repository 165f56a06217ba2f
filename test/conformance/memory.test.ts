import { memoryStorage } from "../../src/memory/index.js";
import { describeStorageConformance } from "../../adapters/testing/index.js";

describeStorageConformance({
  name: "memory",
  create: async () => memoryStorage(),
  destroy: async (storage) => storage.close(),
  skip: {
    durable: "memory storage keeps nothing once closed, by design",
    shared: "memory storage lives in one Storage object; other processes cannot open it",
  },
});
