import { describe, expect, it } from "vitest";
import { importWithPeers } from "../../src/optional-peer.js";

// Names no registry package is likely to take; import() of each fails as a missing package does.
const ABSENT_A = "flagpost-test-absent-peer-a";
const ABSENT_B = "flagpost-test-absent-peer-b";

describe("a missing optional peer", () => {
  it("names every missing peer at once, with one install command", async () => {
    const failed = importWithPeers("flagpost/x", [ABSENT_A, "zod", ABSENT_B], () => import(ABSENT_A));
    await expect(failed).rejects.toThrow(
      `flagpost/x needs the packages ${ABSENT_A} and ${ABSENT_B}: npm install ${ABSENT_A} ${ABSENT_B}`,
    );
  });

  it("names one alone as before", async () => {
    const failed = importWithPeers("flagpost/x", [ABSENT_A, "zod"], () => import(ABSENT_A));
    await expect(failed).rejects.toThrow(`flagpost/x needs the package ${ABSENT_A}: npm install ${ABSENT_A}`);
  });
});
