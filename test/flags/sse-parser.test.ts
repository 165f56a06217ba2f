import { describe, expect, it } from "vitest";
import { SseParser } from "../../src/flags/remote/sse-parser.js";

describe("SseParser", () => {
  it("reads events split anywhere, with CRLF, LF or CR line ends, comments and multi-line data", () => {
    const text = 'retry: 1000\r\n\r\n: keep-alive\n\nevent: snapshot\rid: 7\rdata: {"a":1}\r\rdata: one\ndata: two\n\n';
    // Every split point, so a CR/LF pair or a field cut between chunks is handled.
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
      expect(events, `cut at ${cut}`).toEqual([
        { event: "snapshot", data: '{"a":1}', lastEventId: "7" },
        { event: "message", data: "one\ntwo", lastEventId: "7" },
      ]);
      expect(parser.lastEventId).toBe("7");
    }
  });

  it("keeps the last id across events, ignores ids with NUL, and needs a blank line to dispatch", () => {
    const parser = new SseParser();
    expect(parser.push("id: 3\nevent: flag.updated\ndata: x")).toEqual([]);
    expect(parser.push("\n\nid: bad\u0000\ndata: y\n\ndata\n\n")).toEqual([
      { event: "flag.updated", data: "x", lastEventId: "3" },
      { event: "message", data: "y", lastEventId: "3" },
      { event: "message", data: "", lastEventId: "3" },
    ]);
  });
});
