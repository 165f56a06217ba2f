/**
 * Reads Server-Sent Events as the WHATWG HTML standard defines them (§9.2.6): lines end in CRLF,
 * LF or CR; a blank line dispatches the event; `data:` lines are joined with "\n"; `id:` sets the
 * last event id (kept across events); lines starting with ":" are comments. `retry:` is read
 * and ignored: the remote client has its own backoff. No Node-only module: fetch and text only.
 */
export interface SseEvent {
  /** The `event:` field, "message" when absent. */
  event: string;
  data: string;
  /** The last event id when this event was dispatched ("" when none was ever set). */
  lastEventId: string;
}

const LINE_END = /\r\n|\r|\n/;

export class SseParser {
  #buffer = "";
  #event = "";
  #data: string[] = [];
  #hasData = false;
  /** The id the next reconnection sends as Last-Event-ID ("" when none). */
  lastEventId = "";

  /** Feeds decoded text; returns the events completed by it, in order. */
  push(text: string): SseEvent[] {
    this.#buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const match = LINE_END.exec(this.#buffer);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF still on its way.
      if (match[0] === "\r" && match.index === this.#buffer.length - 1) break;
      const line = this.#buffer.slice(0, match.index);
      this.#buffer = this.#buffer.slice(match.index + match[0].length);
      this.#line(line, events);
    }
    return events;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === "") {
      if (this.#hasData)
        events.push({ event: this.#event || "message", data: this.#data.join("\n"), lastEventId: this.lastEventId });
      this.#event = "";
      this.#data = [];
      this.#hasData = false;
      return;
    }
    if (line.startsWith(":")) return;
    const colon = line.indexOf(":");
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "event") this.#event = value;
    else if (name === "data") {
      this.#data.push(value);
      this.#hasData = true;
    } else if (name === "id" && !value.includes("\0")) this.lastEventId = value;
  }
}
