import { Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";
import { describeAddress, hostOf, isPrivateAddress, type Resolver } from "./address-policy.js";

/**
 * POSTs one webhook delivery without letting an endpoint reach inside the network it runs in
 * (docs/webhooks.md, "SSRF policy"): only http(s); the address is checked when the connection is
 * made (a `lookup` of our own, so a name that resolved to a public address at create time and to
 * 127.0.0.1 now — DNS rebinding — is refused); a deadline on the whole exchange; redirects are
 * not followed (a 3xx is a failed attempt); at most 64 KiB of the answer is read.
 */

export interface SenderOptions {
  allowPrivateNetworks: boolean;
  resolve: Resolver;
  /** Deadline for connecting, sending and reading the answer. Default 10 s. */
  timeoutMs?: number;
  /** Connections kept open per endpoint host. Default 10. */
  maxSockets?: number;
}

/** What one attempt gave: the status (0 when there was no answer) and the answer's first 1 KiB, or why there was none. */
export interface SendResult {
  statusCode: number;
  durationMs: number;
  response: string;
}

const MAX_READ_BYTES = 64 * 1024;
const KEPT_BYTES = 1024;

/** Text that every storage can hold: NUL replaced (invalid UTF-8 already became U+FFFD). */
function storable(bytes: Buffer): string {
  return bytes.toString("utf8").replaceAll("\u0000", "\uFFFD");
}

export class WebhookSender {
  readonly #options: Required<SenderOptions>;
  readonly #http: HttpAgent;
  readonly #https: HttpsAgent;
  readonly #lookup: LookupFunction;

  constructor(options: SenderOptions) {
    this.#options = { timeoutMs: 10_000, maxSockets: 10, ...options };
    // Kept-alive connections were checked when they were made; a new one is checked again.
    const agent = { keepAlive: true, maxSockets: this.#options.maxSockets, scheduling: "lifo" as const };
    this.#http = new HttpAgent(agent);
    this.#https = new HttpsAgent(agent);
    this.#lookup = (hostname, lookupOptions, callback) => {
      this.#resolvePublic(hostname).then(
        (addresses) => {
          if (lookupOptions.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, "", 0),
      );
    };
  }

  /** POSTs `body` with `headers` to `endpoint` and reports what came back; never throws. */
  async send(endpoint: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const done = (statusCode: number, response: string): SendResult => ({
      statusCode,
      durationMs: Math.round(performance.now() - started),
      response,
    });
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      return done(0, "refused: the endpoint is not a URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return done(0, "refused: only http and https");
    const host = hostOf(url);
    // An address in the URL is never looked up, so it is checked here.
    if (isIP(host) !== 0 && !this.#options.allowPrivateNetworks && isPrivateAddress(host))
      return done(0, `refused: ${describeAddress(host)} is not a public address`);
    try {
      const answer = await this.#post(url, headers, body);
      return done(answer.statusCode, answer.response);
    } catch (error) {
      return done(0, (error as Error).message || "the request failed");
    }
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }

  async #resolvePublic(hostname: string): Promise<{ address: string; family: number }[]> {
    const addresses = await this.#options.resolve(hostname);
    if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" });
    if (!this.#options.allowPrivateNetworks) {
      const inside = addresses.find((a) => isPrivateAddress(a.address));
      if (inside)
        throw new Error(`refused: ${hostname} resolves to ${describeAddress(inside.address)}, not a public address`);
    }
    return addresses;
  }

  #post(url: URL, headers: Record<string, string>, body: string): Promise<{ statusCode: number; response: string }> {
    const payload = Buffer.from(body, "utf8");
    const secure = url.protocol === "https:";
    return new Promise((resolve, reject) => {
      const request: ClientRequest = (secure ? httpsRequest : httpRequest)(url, {
        method: "POST",
        headers: { ...headers, "content-length": String(payload.length) },
        agent: secure ? this.#https : this.#http,
        lookup: this.#lookup,
      });
      const timer = setTimeout(
        () => request.destroy(new Error(`timed out after ${this.#options.timeoutMs} ms`)),
        this.#options.timeoutMs,
      );
      const finish = (error: Error | undefined, answer?: { statusCode: number; response: string }) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(answer!);
      };
      request.once("error", (error) => finish(error));
      request.once("response", (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const settle = () => {
          const bytes = Buffer.concat(chunks, size);
          finish(undefined, {
            statusCode: response.statusCode ?? 0,
            response: storable(bytes.subarray(0, KEPT_BYTES)),
          });
        };
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_READ_BYTES) {
            // Enough read: the rest is never downloaded (the connection is not reused).
            response.destroy();
            settle();
          }
        });
        // The status arrived: an answer cut short (deadline, reset) still counts, with what was read.
        response.once("end", settle);
        response.once("error", settle);
        response.once("close", settle);
      });
      request.end(payload);
    });
  }
}
