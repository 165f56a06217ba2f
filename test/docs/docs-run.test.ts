import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Ran, runTsServer, runTsToEnd } from "../support/doc-run.js";
import { tsBlocks } from "../support/markdown.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// Inside the repository, so bare imports resolve from node_modules and "flagpost" through tsconfig's paths.
const OUT = join(ROOT, "test", `.docs-run-${process.pid}`);
const TSCONFIG = join(OUT, "tsconfig.json");
const SECRET = `whsec_${randomBytes(24).toString("base64")}`;

/** A walk-through: a docs block that is a whole program, what it needs, and what its runs must show. */
interface Walkthrough {
  doc: string;
  /** Text only that block of the doc contains. */
  marks: string;
  env?: NodeJS.ProcessEnv;
  serves?: { path: string; check(res: Response, stdout: string, url: string): Promise<void> };
  check?(ran: Ran): void;
}

const WALKTHROUGHS: Walkthrough[] = [
  {
    doc: "experiments.md",
    marks: "fp.experiments.results",
    // u42 is bucketed into one variant; its exposure and purchase must both be in the results.
    check: (ran) => {
      const [variant, line] = ran.stdout.trim().split(/ (.*)/);
      expect(["control", "green"]).toContain(variant);
      expect(line).toContain(`${variant}: 1 users, 1 converted`);
    },
  },
  {
    doc: "webhooks.md",
    marks: 'from "resend"',
    env: { FLAGPOST_WEBHOOK_SECRET: SECRET },
    serves: {
      path: "/",
      check: async (_res, _stdout, url) => {
        const payload = JSON.stringify({ type: "flag.updated", created_at: new Date().toISOString(), data: {} });
        const id = `msg_${randomBytes(8).toString("hex")}`;
        const at = new Date();
        const signature = new Webhook(SECRET).sign(id, at, payload);
        const headers = {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
        };
        const post = (body: string, sig: string) =>
          fetch(`${url}/hooks/flagpost`, { method: "POST", headers: { ...headers, "webhook-signature": sig }, body });
        expect((await post(payload, signature)).status).toBe(204);
        expect((await post(payload.replace("updated", "deleted"), signature)).status).toBe(400); // altered
      },
    },
  },
];

/**
 * Each docs walk-through runs as written, twice, as a reader trying it would; the README has its
 * own test (readme-run.test.ts).
 */
describe("docs walk-throughs run as written, twice", () => {
  beforeAll(async () => {
    await mkdir(OUT, { recursive: true });
    await writeFile(TSCONFIG, JSON.stringify({ extends: "../../tsconfig.json", include: ["*.ts"] }));
  });
  afterAll(async () => rm(OUT, { recursive: true, force: true }));

  for (const walkthrough of WALKTHROUGHS) {
    it(`docs/${walkthrough.doc}: the block with ${walkthrough.marks}`, async () => {
      const blocks = tsBlocks(readFileSync(join(ROOT, "docs", walkthrough.doc), "utf8")).filter((b) =>
        b.includes(walkthrough.marks),
      );
      expect(blocks).toHaveLength(1);
      const name = `${walkthrough.doc.replace(".md", "")}-${WALKTHROUGHS.indexOf(walkthrough)}`;
      const cwd = join(OUT, name);
      await mkdir(cwd, { recursive: true });
      const file = join(OUT, `${name}.ts`);
      await writeFile(file, blocks[0]!);
      for (let run = 1; run <= 2; run++) {
        if (walkthrough.serves) {
          const { path, check } = walkthrough.serves;
          await runTsServer(file, cwd, walkthrough.env ?? {}, TSCONFIG, {
            path,
            check: (res, stdout) => check(res, stdout, new URL(res.url).origin),
          });
        } else walkthrough.check?.(await runTsToEnd(file, cwd, walkthrough.env ?? {}, TSCONFIG));
      }
    }, 120_000);
  }
});
