import { ATTRIBUTE_OPERATORS, OPERATORS } from "../../../src/flags/evaluation/index.js";

/**
 * The dashboard's copy of the attribute-operator table (src/flags/evaluation/operators.ts): each operator's
 * name, the kinds of value its editor offers, and whether the value is a list. The server builds
 * `public/operator-table.js` from the table each time it serves it, so the editor can never offer
 * an operator or a kind the server would refuse; the file on disk is the same text (the browser
 * tests read it from source), and test/flags/operators.test.ts fails when it falls behind.
 */

export const OPERATOR_TABLE_FILE = "operator-table.js";

export function operatorTableScript(): string {
  const rows = ATTRIBUTE_OPERATORS.map((op) => ({ op, kinds: OPERATORS[op].kinds, list: OPERATORS[op].list }));
  return (
    "// Generated from src/flags/evaluation/operators.ts by adapters/http/dashboard/operator-table.ts: do not edit.\n" +
    `export const OPERATOR_TABLE = ${JSON.stringify(rows)};\n`
  );
}
