import { describe, expect, it } from "vitest";
import { splitUrl } from "../../adapters/http/web.js";

describe("splitUrl", () => {
  it("gives what URL gives for every Request URL shape", () => {
    const urls = [
      "http://localhost/",
      "http://localhost:3000/v1/flags",
      "http://127.0.0.1:3000/v1/flags?limit=5&cursor=a%20b",
      "https://example.com/api/v1/flags/%E0%A4%A?x=1#frag",
      "http://h/v1/flags#only-a-fragment",
      "http://h/v1/flags?",
      "http://h/v1/a?b=c?d#e?f",
      "http://[::1]:8080/v1/flags/x%2Fy?q=%2F",
      ...["/v1/../v1/./flags", "/v1/flags/ä b", "/v1//flags"].map((p) => new Request(`http://h${p}`).url),
    ];
    for (const url of urls) {
      const parsed = new URL(url);
      const split = splitUrl(url);
      expect(split.path, url).toBe(parsed.pathname);
      expect(split.query.toString(), url).toBe(parsed.searchParams.toString());
    }
  });
});
