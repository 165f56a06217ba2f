/** Reads a Server-Sent Events answer as text, so a test can wait for what it expects to arrive. */
export class SseReader {
  text = "";
  /** Set when the server ended the answer. */
  ended = false;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #done: Promise<void>;

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
    this.#done = this.#pump();
  }

  /** How many `refetchEvaluation` messages arrived so far. */
  get refetches(): number {
    return this.text.split('data: {"type":"refetchEvaluation"}\n\n').length - 1;
  }

  /** Resolves when `check` holds, or rejects after `timeoutMs`. */
  async until(check: (reader: SseReader) => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!check(this)) {
      if (performance.now() > deadline)
        throw new Error(`not seen in ${timeoutMs} ms; got ${JSON.stringify(this.text)}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Waits until the server ends the answer. */
  closed(): Promise<void> {
    return this.#done;
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }

  async #pump(): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await this.#reader.read();
        if (done) break;
        this.text += decoder.decode(value, { stream: true });
      }
    } catch {
      // cancelled by the test
    }
    this.ended = true;
  }
}
