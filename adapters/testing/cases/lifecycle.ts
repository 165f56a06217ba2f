import { describe, expect, it } from "vitest";
import { flagWrites } from "../../../src/flags/store/index.js";
import type { StorageHarness } from "../harness.js";
import { useStorage } from "./use-storage.js";

export function lifecycleCases(harness: StorageHarness): void {
  describe("lifecycle", () => {
    const storage = useStorage(harness);

    it("names its backend", () => {
      expect(storage().name).toMatch(/^[a-z]+$/);
    });

    it("migrates again without harm: data and revision stay", async () => {
      const at = Date.parse("2026-01-01T00:00:00.000Z");
      await flagWrites(storage()).insert({
        id: "00000000-0000-7000-8000-00000000ffff",
        key: "kept",
        description: "",
        enabled: true,
        rules: [],
        variants: [],
        prerequisites: [],
        createdAt: at,
        updatedAt: at,
      });
      const revision = await storage().flags.revision();
      await storage().migrate();
      await Promise.all([storage().migrate(), storage().migrate()]);
      expect((await storage().flags.get("kept"))?.enabled).toBe(true);
      expect(await storage().flags.revision()).toBe(revision);
    });
  });
}
