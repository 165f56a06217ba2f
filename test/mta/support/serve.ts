import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { waitForOutput } from "../../support/cli.js";

/**
 * The built `flagpost serve` (dist/cli.js, as users run it) for the real-MTA suite: sending over
 * SMTP to the test's Postfix with VERP at the bounce domain, reading reports on its inbound SMTP
 * listener, webhooks allowed to the test's receiver on 127.0.0.1.
 */

const CLI = fileURLToPath(new URL("../../../dist/cli.js", import.meta.url));
export const API_KEY = "mta-suite-key-0123456789abcdef";
export const BOUNCE_DOMAIN = "bounce.test";

export interface ServeSettings {
  /** FLAGPOST_DB: a SQLite file or a PostgreSQL URL. */
  database: string;
  smtpPort: number;
  inboundPort: number;
}

export interface Served {
  readonly url: string;
  /** Everything the process printed so far, for failure messages. */
  output(): string;
  /** A JSON request to the API with the suite's key: the answer's status and parsed body. */
  api<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** SIGTERM, then SIGKILL after 15 s. */
  stop(): Promise<void>;
}

export async function startServe(settings: ServeSettings): Promise<Served> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm run test:mta does it first)`);
  const child: ChildProcess = spawn(process.execPath, [CLI, "serve"], {
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      FLAGPOST_DB: settings.database,
      FLAGPOST_API_KEY: API_KEY,
      // One connection per email: each send is one SMTP transaction in Postfix's log.
      FLAGPOST_SMTP_URL: `smtp://127.0.0.1:${settings.smtpPort}?pool=false`,
      FLAGPOST_BOUNCE_DOMAIN: BOUNCE_DOMAIN,
      FLAGPOST_INBOUND_SMTP_PORT: String(settings.inboundPort),
      FLAGPOST_SECRET_KEY: "mta-suite-secret-0123456789abcdef0123456789",
      FLAGPOST_WEBHOOK_ALLOW_PRIVATE: "true",
      // The suite's requests are few; the limiter is not under test.
      FLAGPOST_RATE_LIMIT_BURST: "100000",
      FLAGPOST_RATE_LIMIT_PER_SECOND: "100000",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(force);
  };
  let url: string;
  try {
    const printed = await waitForOutput(child, /"msg":"listening"/);
    const line = printed.split("\n").find((l) => l.includes('"msg":"listening"'))!;
    url = (JSON.parse(line) as { url: string }).url;
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    output: () => output,
    async api<T>(method: string, path: string, body?: unknown) {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: (text === "" ? {} : JSON.parse(text)) as T };
    },
    stop,
  };
}
