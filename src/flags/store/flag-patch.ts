import type { z } from "zod";
import { FlagpostError } from "../../errors.js";
import type { EpochMs, FlagChanges } from "../../ports/storage/index.js";
import type { Flag, updateFlagSchema } from "../schema.js";
import { assertRuleVariants } from "../values.js";

/**
 * What an update patch changes on `current`, or null when it changes nothing (then `updatedAt`
 * stays and nothing is written, unless the update applies a schedule, which must be completed).
 * Refuses a patch that would change the key or id, or name variants the flag does not have.
 */
export function changesOf(
  patch: z.output<typeof updateFlagSchema>,
  current: Flag,
  at: EpochMs,
  appliesSchedule: boolean,
): FlagChanges | null {
  for (const field of ["key", "id"] as const) {
    if (patch[field] !== undefined && patch[field] !== current[field]) {
      throw new FlagpostError("validation_error", `"${field}" cannot change`, {
        details: [{ path: field, message: "cannot change" }],
      });
    }
  }
  if (patch.rules !== undefined || patch.variants !== undefined)
    assertRuleVariants(patch.rules ?? current.rules, patch.variants ?? current.variants);
  const changes: FlagChanges = { updatedAt: at };
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.enabled !== undefined) changes.enabled = patch.enabled;
  if (patch.rules !== undefined) changes.rules = patch.rules;
  if (patch.variants !== undefined) changes.variants = patch.variants;
  if (patch.prerequisites !== undefined) changes.prerequisites = patch.prerequisites;
  return Object.keys(changes).length === 1 && !appliesSchedule ? null : changes;
}
