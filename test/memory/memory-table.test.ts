import { describe, expect, it } from "vitest";
import { MemoryTable, StagedTable } from "../../src/memory/memory-table.js";

interface Row {
  id: string;
  at: number;
  note?: string;
}

const newestFirst = () => new MemoryTable<Row>((row) => row.id, { by: (row) => [row.at, row.id], descending: true });
const ids = (rows: Iterable<Row>) => [...rows].map((r) => r.id);

describe("MemoryTable", () => {
  it("pages in its order strictly after a keyset bound, also after later writes", () => {
    const table = newestFirst();
    for (const [id, at] of [
      ["a", 1],
      ["b", 2],
      ["c", 2],
      ["d", 3],
    ] as const)
      table.set(id, { id, at });
    expect(ids(table.pageAfter(undefined, 10))).toEqual(["d", "c", "b", "a"]);
    expect(ids(table.pageAfter([2, "c"], 10))).toEqual(["b", "a"]);
    expect(ids(table.pageAfter([2, "c"], 1))).toEqual(["b"]);
    table.set("e", { id: "e", at: 2 });
    expect(ids(table.pageAfter([3, "d"], 10))).toEqual(["e", "c", "b", "a"]);
    table.delete("b");
    expect(ids(table.pageAfter([3, "d"], 10, (r) => r.id !== "a"))).toEqual(["e", "c"]);
    expect(table.deleteWhere((r) => r.at === 2)).toBe(2);
    expect(ids(table.scan())).toEqual(["d", "a"]);
  });

  it("keeps its order when more keys were written since the last scan than it tracks", () => {
    const table = newestFirst();
    table.set("a", { id: "a", at: 1 });
    expect(ids(table.scan())).toEqual(["a"]);
    for (let i = 0; i < 5; i++) table.set(`x${i}`, { id: `x${i}`, at: i });
    for (let i = 0; i < 5; i++) table.delete(`x${i}`);
    table.set("b", { id: "b", at: 0 });
    table.set("c", { id: "c", at: 2 });
    expect(ids(table.scan([2, "c"]))).toEqual(["a", "b"]);
  });

  it("hands out copies and refuses a taken key", () => {
    const table = newestFirst();
    table.insert([{ id: "a", at: 1 }], (key) => `taken: ${key}`);
    table.read("a")!.note = "changed outside";
    table.pageAfter(undefined, 1)[0]!.note = "changed outside";
    expect(table.read("a")).toEqual({ id: "a", at: 1 });
    expect(() => table.insert([{ id: "a", at: 5 }], (key) => `taken: ${key}`)).toThrow("taken: a");
  });
});

describe("StagedTable", () => {
  it("sees its own writes, leaves the table alone until it commits, then applies them all", () => {
    const table = newestFirst();
    table.set("a", { id: "a", at: 1 });
    table.set("b", { id: "b", at: 2 });
    const staged = new StagedTable(table);
    staged.set("a", null);
    staged.set("c", { id: "c", at: 3 });
    expect(staged.get("a")).toBeUndefined();
    expect(ids(staged.rows()).sort()).toEqual(["b", "c"]);
    expect(ids(table.scan())).toEqual(["b", "a"]);
    expect(staged.commit()).toBe(2);
    expect(ids(table.scan())).toEqual(["c", "b"]);
  });
});
