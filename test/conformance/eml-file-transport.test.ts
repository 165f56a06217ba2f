import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emlFileTransport } from "../../adapters/nodemailer/index.js";
import { describeTransportConformance } from "../../adapters/testing/index.js";

// The development transport: one .eml file per email under a directory.
describeTransportConformance({
  name: "eml files",
  reports: "delivered",
  async create() {
    const dir = await mkdtemp(join(tmpdir(), "flagpost-eml-"));
    const outbox = join(dir, "outbox"); // created by the transport on first use
    const recipients = new Map<string, string[]>();
    const transport = emlFileTransport({
      directory: outbox,
      onWritten: (file, _message, to) => recipients.set(file, to),
    });
    return {
      transport,
      async delivered() {
        const files = (await readdir(outbox).catch(() => [])).filter((f) => f.endsWith(".eml")).sort();
        return Promise.all(
          files.map(async (f) => ({
            raw: await readFile(join(outbox, f)),
            recipients: recipients.get(join(outbox, f)) ?? [],
          })),
        );
      },
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  },
});
