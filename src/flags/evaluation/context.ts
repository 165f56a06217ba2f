import { inputProblem } from "../../input-policy.js";
import { parseInput, validationError } from "../../validation.js";
import { type EvaluationContext, evaluationContextSchema, MAX_ID_LENGTH } from "../schema.js";

/**
 * Whether `input` is an evaluation context that `evaluationContextSchema` accepts unchanged: an
 * object holding at most `userId` (a string of 1 to MAX_ID_LENGTH characters) and `attributes`
 * (a plain object). Anything else, including shapes zod would also accept, goes to zod.
 */
function isPlainContext(input: unknown): input is EvaluationContext {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return false;
  for (const name in input) {
    const value = (input as Record<string, unknown>)[name];
    if (name === "userId") {
      if (typeof value !== "string" || value.length < 1 || value.length > MAX_ID_LENGTH) return false;
    } else if (name === "attributes") {
      if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype)
        return false;
    } else {
      return false;
    }
  }
  return Object.getPrototypeOf(input) === Object.prototype;
}

/**
 * The evaluation context of a request, validated by `evaluationContextSchema` (422 naming the
 * field otherwise). Contexts of the common shape are checked without zod and returned as given;
 * zod sees the rest and words the errors.
 */
export function parseEvaluationContext(input: unknown): EvaluationContext {
  if (!isPlainContext(input)) return parseInput(evaluationContextSchema, input);
  // The fast path skips zod, not the storage rules every input obeys (a "__proto__" key included).
  const problem = inputProblem(input);
  if (problem) throw validationError([problem]);
  return input;
}
