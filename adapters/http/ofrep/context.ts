import { z } from "zod";
import { FlagpostError } from "../../../src/errors.js";
import { parseEvaluationContext } from "../../../src/flags/evaluation/index.js";

/** openapi.yaml `evaluationRequest`: `{context: {targetingKey?, ...attributes}}`, context optional. */
const requestSchema = z.object({ context: z.record(z.string(), z.unknown()).optional() }).passthrough();

export type OfrepContext =
  { ok: true; context: { userId?: string; attributes?: Record<string, unknown> } } | { ok: false; details: string };

/**
 * The OFREP evaluation context as flagpost's: `targetingKey` is the user id, every other field an
 * attribute. A body that is not `{context: object}`, or a context no evaluation accepts (a
 * targetingKey too long, an attribute storage cannot hold), is INVALID_CONTEXT (the spec's code
 * for a context the server cannot use), found here once, before any flag is evaluated, so the
 * single and bulk routes refuse it alike.
 */
export function ofrepContext(body: unknown): OfrepContext {
  const parsed = requestSchema.safeParse(body ?? {});
  if (!parsed.success) return { ok: false, details: "The body must be {context: {targetingKey?, ...attributes}}" };
  const { targetingKey, ...attributes } = parsed.data.context ?? {};
  if (targetingKey !== undefined && typeof targetingKey !== "string")
    return { ok: false, details: "targetingKey must be a string" };
  const context: { userId?: string; attributes?: Record<string, unknown> } = {};
  if (targetingKey !== undefined && targetingKey !== "") context.userId = targetingKey;
  if (Object.keys(attributes).length > 0) context.attributes = attributes;
  try {
    return { ok: true, context: parseEvaluationContext(context) };
  } catch (error) {
    if (error instanceof FlagpostError && error.code === "validation_error")
      return { ok: false, details: contextProblem(error) };
    throw error;
  }
}

/** The validation error in the OFREP context's own names: `userId` is `targetingKey`, `attributes.x` is `x`. */
function contextProblem(error: FlagpostError): string {
  const detail = error.details?.[0];
  if (detail === undefined) return error.message;
  const path = detail.path.replace(/^userId/, "targetingKey").replace(/^attributes\.?/, "");
  return `context${path === "" ? "" : `.${path}`} ${detail.message}`;
}
