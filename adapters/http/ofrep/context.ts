import { z } from "zod";

/** openapi.yaml `evaluationRequest`: `{context: {targetingKey?, ...attributes}}`, context optional. */
const requestSchema = z.object({ context: z.record(z.string(), z.unknown()).optional() }).passthrough();

export type OfrepContext =
  { ok: true; context: { userId?: string; attributes?: Record<string, unknown> } } | { ok: false; details: string };

/**
 * The OFREP evaluation context as flagpost's: `targetingKey` is the user id, every other field an
 * attribute. A body that is not `{context: object}` is INVALID_CONTEXT (the spec's code for a
 * context the server cannot use).
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
  return { ok: true, context };
}
