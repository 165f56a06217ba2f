import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject } from "ajv";
import { parse } from "yaml";

/**
 * The OFREP specification's own schemas (open-feature/protocol service/openapi.yaml, copied into
 * fixtures/ with its source and licence), turned into JSON Schema for ajv: `#/components/...`
 * references resolved into `$defs`, OpenAPI's `nullable` as a `null` type. Two readings of the
 * spec are explicit below, because the schema read literally accepts no answer at all.
 */

const SPEC_PATH = new URL("./fixtures/openapi.yaml", import.meta.url);

type Schema = Record<string, unknown>;
type OpenApi = {
  paths: Record<
    string,
    { post: { responses: Record<string, { content?: { "application/json": { schema: Schema } } }> } }
  >;
  components: { schemas: Record<string, Schema> };
};

export function loadSpec(): OpenApi {
  return parse(readFileSync(SPEC_PATH, "utf8")) as OpenApi;
}

/** OpenAPI → JSON Schema: `#/components/schemas/x` → `#/$defs/x`, `nullable: true` → type + "null". */
export function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== "object") return node;
  const out: Schema = {};
  for (const [name, value] of Object.entries(node as Schema)) {
    if (name === "$ref" && typeof value === "string") out.$ref = value.replace(/^#\/components\/schemas\//, "#/$defs/");
    else if (name === "nullable") continue;
    else out[name] = toJsonSchema(value);
  }
  if ((node as Schema).nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}

/**
 * `evaluationSuccess` lists its value types under `oneOf`, next to `codeDefaultFlag`, a schema with
 * no constraint (`properties: {}`) whose description says it "has no value property": read
 * literally, `{value: true}` matches both `booleanFlag` and `codeDefaultFlag`, and `{value: 1}`
 * also `integerFlag` and `floatFlag`, so `oneOf` refuses every answer. Read as meant: the code
 * default is the answer without `value`, and the value is one of the types (`anyOf`).
 */
export function readAsMeant(schemas: Record<string, Schema>): Record<string, Schema> {
  const copy = structuredClone(schemas);
  copy.codeDefaultFlag = { ...copy.codeDefaultFlag, not: { required: ["value"] } };
  const success = copy.evaluationSuccess as { allOf: Schema[] };
  success.allOf = success.allOf.map((part) => ("oneOf" in part ? { anyOf: part.oneOf } : part));
  return copy;
}

/**
 * flagpost's one deliberate extension (docs/ofrep.md "Where flagpost differs"): the success
 * reason `DEFAULT` (nobody matched, a prerequisite failed), an OpenFeature standard reason the
 * spec's enum leaves out.
 */
export function withDefaultReason(schemas: Record<string, Schema>): Record<string, Schema> {
  const copy = structuredClone(schemas);
  const parts = (copy.evaluationSuccess as { allOf: { properties?: { reason?: { enum: string[] } } }[] }).allOf;
  for (const part of parts) part.properties?.reason?.enum.push("DEFAULT");
  return copy;
}

export interface SpecValidator {
  /** The errors of `body` against the schema the spec gives `status` on `path`, or [] when it holds. */
  check(path: string, status: number, body: unknown): ErrorObject[];
  /** Whether the spec gives `status` on `path` a JSON body at all. */
  hasBody(path: string, status: number): boolean;
}

export function specValidator(spec: OpenApi, schemas: Record<string, Schema>): SpecValidator {
  // `format: float` / `uri` are hints here; the types are what is checked.
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const $defs = toJsonSchema(schemas) as Schema;
  const schemaOf = (path: string, status: number) =>
    spec.paths[path]!.post.responses[String(status)]?.content?.["application/json"].schema;
  const compiled = new Map<string, ReturnType<Ajv["compile"]>>();
  return {
    hasBody: (path, status) => schemaOf(path, status) !== undefined,
    check(path, status, body) {
      const schema = schemaOf(path, status);
      if (schema === undefined) throw new Error(`the spec gives ${path} no JSON body for ${status}`);
      const id = `${path} ${status}`;
      let validate = compiled.get(id);
      if (validate === undefined) {
        validate = ajv.compile({ ...(toJsonSchema(schema) as Schema), $defs });
        compiled.set(id, validate);
      }
      return validate(body) ? [] : (validate.errors ?? []);
    },
  };
}

export const SINGLE = "/ofrep/v1/evaluate/flags/{key}";
export const BULK = "/ofrep/v1/evaluate/flags";
