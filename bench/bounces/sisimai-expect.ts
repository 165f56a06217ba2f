import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

/**
 * Builds the expectations file `npm run bench:bounces -- --expect` reads, from the Sisimai
 * project's own test lists: a go-sisimai checkout's `fact/*_test.go` files each hold, per sample
 * message of the public `set-of-emails` corpus, the status, reply code, reason and hard-bounce
 * verdict Sisimai gives every recipient. Nothing of either repository is committed here; the lists
 * are read from the checkout you point this at.
 *
 *   npx tsx bench/bounces/sisimai-expect.ts <go-sisimai>/fact [--emails <set-of-emails>/maildir/bsd] > expect.json
 *
 * With `--emails`, only messages present in that folder are kept. Output: `{ "<file>.eml": [{index,
 * status, replyCode, reason, hardBounce, feedbackType?}, …] }`, recipients in Sisimai's order.
 */
export interface ExpectedRecipient {
  index: number;
  status: string;
  replyCode: string;
  reason: string;
  hardBounce: boolean;
  feedbackType?: string;
}

/** `{"01", 1, "5.1.1", "550", "userunknown", true, ""}`: one row of an IsExpected list. */
const ROW = /\{\s*"(\d+)",\s*(\d+),\s*"([^"]*)",\s*"([^"]*)",\s*"([^"]*)",\s*(true|false),\s*"([^"]*)"\s*\}/g;
/** The public list of one engine (the secret lists name messages that are not public). */
const PUBLIC_LIST =
  /publiclist\s*:=\s*\[\]\[\]IsExpected\{([\s\S]*?)\n\s*\};?\s*EngineTest\(t,\s*"([^"]+)",\s*publiclist/g;

/** `26-lhost-exim_test.go` names files `lhost-exim-NN.eml`; `90-rfc3464_test.go` names `rfc3464-NN.eml`. */
function filePrefix(testFile: string): string {
  if (testFile.includes("-lhost-")) return "lhost-";
  if (testFile.includes("-rhost-")) return "rhost-";
  return "";
}

export function expectationsOf(factDir: string, emailsDir?: string): Record<string, ExpectedRecipient[]> {
  const out: Record<string, ExpectedRecipient[]> = {};
  for (const name of readdirSync(factDir)
    .filter((n) => n.endsWith("_test.go"))
    .sort()) {
    const source = readFileSync(join(factDir, name), "utf8");
    for (const list of source.matchAll(PUBLIC_LIST)) {
      const engine = list[2]!.toLowerCase();
      for (const row of list[1]!.matchAll(ROW)) {
        const [, label, index, status, replyCode, reason, hard, other] = row;
        const file = `${filePrefix(basename(name))}${engine}-${label}.eml`;
        if (emailsDir !== undefined && !existsSync(join(emailsDir, file))) continue;
        const rows = (out[file] ??= []);
        if (rows.some((r) => r.index === Number(index))) continue;
        rows.push({
          index: Number(index),
          status: status!,
          replyCode: replyCode!,
          reason: reason!,
          hardBounce: hard === "true",
          ...(other ? { feedbackType: other } : {}),
        });
      }
    }
  }
  return out;
}

const isMain = process.argv[1] !== undefined && basename(process.argv[1]).startsWith("sisimai-expect");
if (isMain) {
  const args = process.argv.slice(2);
  const factDir = args.find((a) => !a.startsWith("--"));
  const emailsAt = args.indexOf("--emails");
  if (factDir === undefined) {
    process.stderr.write("usage: sisimai-expect.ts <go-sisimai>/fact [--emails <maildir>] > expect.json\n");
    process.exit(2);
  }
  const expectations = expectationsOf(factDir, emailsAt >= 0 ? args[emailsAt + 1] : undefined);
  process.stdout.write(`${JSON.stringify(expectations, null, 1)}\n`);
  const recipients = Object.values(expectations).reduce((n, rows) => n + rows.length, 0);
  process.stderr.write(`${Object.keys(expectations).length} messages, ${recipients} recipients\n`);
}
