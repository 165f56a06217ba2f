/**
 * A test-side reader of Server-Sent Events (written apart from the remote client's, so the two
 * check each other): `next()` gives the next event or comment, failing after `timeoutMs`.
 */
export interface SseMessage {
  /** "comment" for a `:` line; the `event:` field otherwise ("message" when absent). */
  event: string;
  id?: string;
  data?: string;
  retry?: string;
}

export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";
  #pending: SseMessage[] = [];
  done = false;

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  /** The next message, or undefined once the stream ended. */
  async next(timeoutMs = 5_000): Promise<SseMessage | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#pending.length === 0) {
      if (this.done) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no server-sent event within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      const read = await Promise.race([
        this.#reader.read(),
        new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), left))),
      ]).finally(() => clearTimeout(timer));
      if (read === "timeout") throw new Error(`no server-sent event within ${timeoutMs} ms`);
      if (read.done) this.done = true;
      else this.#buffer += this.#decoder.decode(read.value, { stream: true });
      this.#parse();
    }
    return this.#pending.shift();
  }

  /** The next message that is not a comment. */
  async nextEvent(timeoutMs = 5_000): Promise<SseMessage | undefined> {
    for (;;) {
      const message = await this.next(timeoutMs);
      if (message?.event !== "comment") return message;
    }
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }

  #parse(): void {
    let end: number;
    while ((end = this.#buffer.indexOf("\n\n")) >= 0) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      const message: SseMessage = { event: "message" };
      let fields = 0;
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) {
          this.#pending.push({ event: "comment", data: line.slice(1).trim() });
          continue;
        }
        const colon = line.indexOf(":");
        const name = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, "");
        if (name === "event" || name === "id" || name === "data" || name === "retry") message[name] = value;
        if (name === "event" || name === "id" || name === "data") fields += 1; // a lone retry: is no event
      }
      if (fields > 0) this.#pending.push(message);
    }
  }
}

/** Opens the flag stream of a target. */
export async function openStream(
  url: string,
  key: string,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<{ response: Response; sse: SseReader }> {
  const response = await fetch(`${url}/v1/flags/_stream`, {
    headers: { authorization: `Bearer ${key}`, accept: "text/event-stream", ...headers },
    signal,
  });
  return { response, sse: new SseReader(response) };
}
