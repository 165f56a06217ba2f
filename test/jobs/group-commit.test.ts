import { describe, expect, it } from "vitest";
import { GroupCommit } from "../../src/jobs/group-commit.js";

// Many small writes share one write; each caller gets its own item's answer.

function recorder(fail?: (items: number[]) => boolean) {
  const writes: number[][] = [];
  let open = 0;
  let overlapped = false;
  const write = async (items: number[]) => {
    writes.push(items);
    open += 1;
    overlapped ||= open > 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    open -= 1;
    if (fail?.(items)) throw new Error(`refused ${items.join(",")}`);
    return items.map((n) => n * 10);
  };
  return { write, writes, overlapped: () => overlapped };
}

describe("GroupCommit", () => {
  it("keeps a flush() made during a write: the items waiting then are written as soon as it ends", async () => {
    const r = recorder();
    const group = new GroupCommit(r.write, { maxDelayMs: 60_000, writeNow: () => false });
    const first = group.add(1);
    group.flush();
    await new Promise((resolve) => setTimeout(resolve, 1)); // the first write is running
    const second = group.add(2);
    group.flush(); // during the write: must not be forgotten (else 2 waits the full 60 s)
    const started = performance.now();
    expect(await Promise.all([first, second])).toEqual([10, 20]);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(r.writes).toEqual([[1], [2]]);
  });

  it("writes items added in one turn together, answers each with its own result, and never overlaps writes", async () => {
    const r = recorder();
    const group = new GroupCommit(r.write, { maxBatch: 3 });
    const first = [1, 2, 3, 4].map((n) => group.add(n));
    await new Promise((resolve) => setTimeout(resolve, 1)); // the first write is running
    const later = [5, 6].map((n) => group.add(n));
    expect(await Promise.all([...first, ...later])).toEqual([10, 20, 30, 40, 50, 60]);
    expect(r.writes).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(r.overlapped()).toBe(false);
  });

  it("waits up to maxDelayMs for more items unless writeNow says to go, and flush() goes at once", async () => {
    const r = recorder();
    let busy = true;
    const group = new GroupCommit(r.write, { maxDelayMs: 40, writeNow: () => !busy });
    const started = performance.now();
    const a = group.add(1);
    setTimeout(() => void group.add(2), 10);
    await a;
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(r.writes).toEqual([[1, 2]]);

    const b = group.add(3);
    group.flush();
    const flushedAt = performance.now();
    await b;
    expect(performance.now() - flushedAt).toBeLessThan(35);
    busy = false;
    const c = performance.now();
    await group.add(4);
    expect(performance.now() - c).toBeLessThan(35);
    expect(r.writes).toEqual([[1, 2], [3], [4]]);
  });

  it("rejects the whole group by default, or retries item by item so only the bad one fails", async () => {
    const bad = (items: number[]) => items.includes(2);
    const rejecting = new GroupCommit(recorder(bad).write);
    const all = await Promise.allSettled([1, 2, 3].map((n) => rejecting.add(n)));
    expect(all.map((s) => s.status)).toEqual(["rejected", "rejected", "rejected"]);

    const r = recorder(bad);
    const oneByOne = new GroupCommit(r.write, { onGroupFailure: "one-by-one" });
    const each = await Promise.allSettled([1, 2, 3].map((n) => oneByOne.add(n)));
    expect(each.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(r.writes).toEqual([[1, 2, 3], [1], [2], [3]]);
  });
});
