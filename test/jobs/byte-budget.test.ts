import { expect, it } from "vitest";
import { ByteBudget } from "../../src/jobs/byte-budget.js";

/** Work that runs until its `finish` is called, recording when it started. */
function gate() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { finish, done };
}

it("runs work while its bytes fit, queues the rest in order, and gives bytes back when work settles", async () => {
  const budget = new ByteBudget(100);
  const started: string[] = [];
  const a = gate();
  const b = gate();
  const c = gate();
  const runA = budget.hold(60, async () => (started.push("a"), a.done));
  const runB = budget.hold(60, async () => (started.push("b"), b.done));
  const runC = budget.hold(10, async () => (started.push("c"), c.done));
  await Promise.resolve();
  // c would fit beside a, but b waits first: no overtaking.
  expect(started).toEqual(["a"]);
  expect(budget.held).toBe(60);
  expect(budget.waiting).toBe(2);
  a.finish();
  await runA;
  await Promise.resolve();
  expect(started).toEqual(["a", "b", "c"]);
  expect(budget.held).toBe(70);
  b.finish();
  c.finish();
  await Promise.all([runB, runC]);
  expect(budget.held).toBe(0);
});

it("runs work larger than the whole budget alone, and gives its bytes back when it throws", async () => {
  const budget = new ByteBudget(100);
  await expect(budget.hold(500, async () => Promise.reject(new Error("send failed")))).rejects.toThrow("send failed");
  expect(budget.held).toBe(0);
  const big = gate();
  const started: string[] = [];
  const runBig = budget.hold(500, async () => (started.push("big"), big.done));
  const runSmall = budget.hold(1, async () => void started.push("small"));
  await Promise.resolve();
  expect(started).toEqual(["big"]);
  big.finish();
  await Promise.all([runBig, runSmall]);
  expect(started).toEqual(["big", "small"]);
});

it("refuses a budget below one byte", () => {
  expect(() => new ByteBudget(0, "sendingBytes")).toThrow(/sendingBytes must be a number of bytes/);
});
