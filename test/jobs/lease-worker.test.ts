import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../src/ports/logger.js";
import type { JobQueue } from "../../src/jobs/job-queue.js";
import { LeaseWorker } from "../../src/jobs/lease-worker.js";
import { deadLocalOwners, jobOwner } from "../../src/jobs/owner.js";
import { fakeClock } from "../support/fake-clock.js";
import { waitUntil } from "../flags/support/wait.js";

// The lease worker against a small in-memory jobs table with the same claim/renew contract as
// adapters/kysely/job-claims.ts (the storage side is proven by the conformance suite).

interface Job {
  id: string;
  leaseUntil?: number;
  leaseOwner?: string;
  done?: boolean;
}

function table(clock: { now(): number }, ids: string[]) {
  const jobs = new Map(ids.map((id): [string, Job] => [id, { id }]));
  const renewals: number[] = [];
  const queue = {
    async owners(now: number) {
      return [
        ...new Set(
          [...jobs.values()].filter((j) => !j.done && j.leaseOwner && j.leaseUntil! > now).map((j) => j.leaseOwner!),
        ),
      ];
    },
    async release(owners: readonly string[]) {
      const freed = [...jobs.values()].filter((j) => !j.done && owners.includes(j.leaseOwner ?? ""));
      for (const j of freed) Object.assign(j, { leaseOwner: undefined, leaseUntil: undefined });
      return freed.length;
    },
    async claim(now, limit, leaseMs, owner) {
      const due = [...jobs.values()]
        .filter((j) => !j.done && (j.leaseUntil === undefined || j.leaseUntil <= now))
        .slice(0, limit);
      for (const j of due) Object.assign(j, { leaseOwner: owner, leaseUntil: now + leaseMs });
      return due.map((j) => ({ ...j }));
    },
    async renew(ids, owner, until) {
      renewals.push(ids.length);
      const held = ids.filter((id) => jobs.get(id)?.leaseOwner === owner && !jobs.get(id)?.done);
      for (const id of held) jobs.get(id)!.leaseUntil = until;
      return held;
    },
  } satisfies JobQueue<Job>;
  return { jobs, queue, renewals, now: () => clock.now() };
}

function gate() {
  const open: (() => void)[] = [];
  return {
    wait: () => new Promise<void>((resolve) => open.push(resolve)),
    release: () => open.splice(0).forEach((f) => f()),
    get waiting() {
      return open.length;
    },
  };
}

describe("LeaseWorker", () => {
  it("runs at most `concurrency` jobs at once, records each, and drains on stop", async () => {
    const clock = fakeClock();
    const t = table(
      clock,
      Array.from({ length: 7 }, (_, i) => `j${i}`),
    );
    const g = gate();
    const recorded: string[] = [];
    const worker = new LeaseWorker(
      t.queue,
      {
        perform: async (job) => (await g.wait(), job.id),
        record: async (job, r) => {
          recorded.push(r);
          t.jobs.get(job.id)!.done = true;
        },
      },
      clock,
      silentLogger,
      { name: "test", concurrency: 3, leaseMs: 30_000, pollIntervalMs: 50 },
    );
    worker.start();
    await waitUntil(() => g.waiting === 3, { timeoutMs: 2_000 });
    expect(worker.performing).toBe(3);
    while (recorded.length < 7) {
      g.release();
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(worker.performing).toBeLessThanOrEqual(3);
    }
    await worker.stop();
    expect(recorded.sort()).toEqual(["j0", "j1", "j2", "j3", "j4", "j5", "j6"]);
  });

  it("renews the leases it holds while it lives, so a job outliving the first lease is not taken over", async () => {
    const clock = fakeClock();
    const t = table(clock, ["long"]);
    const g = gate();
    const worker = new LeaseWorker(
      t.queue,
      { perform: () => g.wait(), record: async (job) => void (t.jobs.get(job.id)!.done = true) },
      clock,
      silentLogger,
      { name: "test", leaseMs: 300, heartbeatMs: 20, pollIntervalMs: 1_000 },
    );
    worker.start();
    await waitUntil(() => g.waiting === 1, { timeoutMs: 2_000 });
    for (let i = 0; i < 5; i++) {
      clock.advance(200); // past the first lease, unless renewed
      await worker.renewNow();
      expect(await t.queue.claim(clock.now(), 10, 300, "other")).toEqual([]);
    }
    expect(t.jobs.get("long")!.leaseUntil).toBe(clock.now() + 300);
    g.release();
    await worker.stop();
    expect(t.renewals.length).toBeGreaterThanOrEqual(5);
  });

  it("does not start a queued job whose lease a renewal found lost, nor one with too little lease left", async () => {
    const clock = fakeClock();
    const t = table(clock, ["a", "b", "c"]);
    const g = gate();
    const performed: string[] = [];
    const worker = new LeaseWorker(
      t.queue,
      {
        perform: async (job) => (performed.push(job.id), g.wait()),
        record: async (job) => void (t.jobs.get(job.id)!.done = true),
      },
      clock,
      silentLogger,
      { name: "test", concurrency: 1, leaseMs: 10_000, startMarginMs: 5_000, pollIntervalMs: 60_000 },
    );
    const round = worker.runOnce(); // claims only "a" (room for one)
    await waitUntil(() => g.waiting === 1, { timeoutMs: 2_000 });
    worker.start(); // claims b and c into the queue behind a
    await waitUntil(async () => t.jobs.get("c")!.leaseOwner === worker.owner, { timeoutMs: 2_000 });
    t.jobs.get("b")!.leaseOwner = "someone-else"; // b's lease ended and another worker took it
    await worker.renewNow();
    clock.advance(6_000); // c: 4 s of lease left after the renewal at t+0, below the 5 s margin
    g.release();
    await waitUntil(() => t.jobs.get("a")!.done === true, { timeoutMs: 2_000 });
    await worker.stop();
    await round;
    expect(performed).toEqual(["a"]);
  });

  it("frees at once the leases of a dead process on this host, and only those", async () => {
    const child = spawn(process.execPath, ["-e", ""]);
    await once(child, "exit");
    const host = jobOwner().replace(/:\d+:[0-9a-f]+$/, "");
    const owners = {
      dead: `${host}:${child.pid}:0badc0de`,
      live: `${host}:${process.ppid}:0badc0de`,
      elsewhere: `other-host@1:${child.pid}:0badc0de`,
      previous: `${host}:${process.pid}:0badc0de`,
    };
    expect(deadLocalOwners(Object.values(owners)).sort()).toEqual([owners.dead, owners.previous].sort());
    expect(deadLocalOwners([jobOwner()])).toEqual([]); // this process's own workers live

    const clock = fakeClock();
    const t = table(clock, Object.keys(owners));
    for (const [id, owner] of Object.entries(owners))
      await t.queue
        .claim(clock.now(), 1, 30_000, owner)
        .then(() => Object.assign(t.jobs.get(id)!, { leaseOwner: owner }));
    const performed: string[] = [];
    const worker = new LeaseWorker(
      t.queue,
      {
        perform: async (job) => void performed.push(job.id),
        record: async (job) => void (t.jobs.get(job.id)!.done = true),
      },
      clock,
      silentLogger,
      { name: "test", leaseMs: 30_000, pollIntervalMs: 50 },
    );
    worker.start();
    await waitUntil(() => performed.length === 2, { timeoutMs: 2_000 });
    await worker.stop();
    expect(performed.sort()).toEqual(["dead", "previous"]); // without moving the clock: no lease ended
  });

  it("refuses settings that could run a job twice", () => {
    const t = table(fakeClock(), []);
    const handler = { perform: async () => undefined, record: async () => undefined };
    expect(
      () =>
        new LeaseWorker(t.queue, handler, fakeClock(), silentLogger, {
          name: "x",
          leaseMs: 1_000,
          startMarginMs: 1_000,
        }),
    ).toThrow(expect.objectContaining({ code: "validation_error" }));
    expect(
      () =>
        new LeaseWorker(t.queue, handler, fakeClock(), silentLogger, { name: "x", leaseMs: 1_000, heartbeatMs: 1_000 }),
    ).toThrow(/heartbeatMs/);
    expect(
      () => new LeaseWorker(t.queue, handler, fakeClock(), silentLogger, { name: "x", leaseMs: 1_000, concurrency: 0 }),
    ).toThrow(/concurrency/);
  });
});
