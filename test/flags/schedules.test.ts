import { expect, it } from "vitest";
import { createFlagpost, type Flagpost } from "../../src/flagpost.js";
import { FlagpostError } from "../../src/errors.js";
import { memoryStorage } from "../../src/memory/index.js";
import { ScheduleWorker } from "../../src/flags/schedules/index.js";
import { silentLogger } from "../../src/ports/logger.js";
import type { Storage } from "../../src/ports/storage/index.js";
import { deliveriesOf, webhook } from "../../adapters/testing/cases/webhook-fixtures.js";
import { fakeClock } from "../support/fake-clock.js";
import { describeEachStorage } from "../support/storage-backends.js";

/**
 * Scheduled changes through fp.flags.schedules and the ScheduleWorker, on every backend: two
 * workers (as two processes would run) apply a due schedule once, with its history entry and
 * its flag.updated event; a deleted flag or changes that no longer pass end failed with a reason.
 */
describeEachStorage("scheduled flag changes", (storage) => {
  const clock = fakeClock(Date.parse("2026-09-01T12:00:00.000Z"));

  async function open(s: Storage): Promise<Flagpost> {
    const fp = createFlagpost({ storage: s, clock, logger: silentLogger, flagSchedules: { autoStart: false } });
    await fp.ready();
    return fp;
  }

  function worker(fp: Flagpost, s: Storage): ScheduleWorker {
    return new ScheduleWorker({ storage: s, flags: fp.flags, clock, logger: silentLogger });
  }

  it("is applied once by one of two workers when due, recorded in the history, and emits flag.updated", async () => {
    const fp = await open(storage());
    const hook = webhook({ events: ["flag.updated"] });
    await storage().webhooks.insertWebhook(hook);
    await fp.flags.create({ key: "launch", rules: [{ type: "percentage", percentage: 5 }] });
    const at = new Date(clock.now() + 60_000).toISOString();
    const made = await fp.flags.schedules.create("launch", {
      at,
      changes: { enabled: true, rules: [{ type: "percentage", percentage: 50 }] },
    });
    expect(made).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      flagKey: "launch",
      at,
      changes: { enabled: true, rules: [{ type: "percentage", percentage: 50 }] },
      status: "pending",
      createdAt: new Date(clock.now()).toISOString(),
      createdBy: { type: "in_process" },
    });
    const [w1, w2] = [worker(fp, storage()), worker(fp, storage())];
    expect(await w1.runOnce()).toBe(0); // not due yet
    expect(fp.isEnabled("launch", { userId: "u1" })).toBe(false);

    clock.advance(60_000);
    const claimed = await Promise.all([w1.runOnce(), w2.runOnce(), w1.runOnce()]);
    expect(claimed.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await w2.runOnce()).toBe(0);

    expect(await fp.flags.get("launch")).toMatchObject({
      enabled: true,
      rules: [{ type: "percentage", percentage: 50 }],
    });
    expect(fp.flagClient.evaluate("launch", { userId: "u1" }).reason).not.toBe("disabled"); // the snapshot heard it
    const history = await fp.flags.history("launch");
    expect(history.data.map((e) => e.action)).toEqual(["scheduled_change_applied", "created"]);
    expect(history.data[0]).toMatchObject({
      actor: { type: "schedule", id: made.id },
      changes: [
        { path: "enabled", before: false, after: true },
        { path: "rules.0.percentage", before: 5, after: 50 },
      ],
    });
    expect((await fp.flags.schedules.list("launch")).data).toEqual([
      { ...made, status: "applied", finishedAt: new Date(clock.now()).toISOString() },
    ]);
    expect(await deliveriesOf(storage(), [hook])).toEqual(["0:flag.updated"]);
    await fp.close();
  });

  it("ends failed with flag_not_found when the flag was deleted, and with invalid_changes when they no longer pass", async () => {
    const fp = await open(storage());
    await fp.flags.create({ key: "doomed" });
    await fp.flags.create({ key: "kept" });
    const at = new Date(clock.now() + 1_000).toISOString();
    const lost = await fp.flags.schedules.create("doomed", { at, changes: { enabled: true } });
    await fp.flags.delete("doomed");
    // Stored by an older version whose rules allowed it, or written around the API: re-checked when applied.
    const stale = {
      id: "0199aaaa-0000-7000-8000-000000000001",
      flagKey: "kept",
      at: Date.parse(at),
      changes: { enabled: true, rules: [{ type: "percentage", percentage: 150 }] },
      status: "pending" as const,
      createdAt: Date.parse(at),
      createdBy: { type: "in_process" as const },
      attempts: 0,
      nextAttemptAt: Date.parse(at),
    };
    await storage().flagSchedules.insert(stale);
    // A prerequisite that existed when the change was scheduled, gone when it is due.
    await fp.flags.create({ key: "dependency" });
    const orphan = await fp.flags.schedules.create("kept", {
      at,
      changes: { prerequisites: [{ flagKey: "dependency", enabled: true }] },
    });
    await fp.flags.delete("dependency");
    clock.advance(1_000);
    expect(await worker(fp, storage()).runOnce()).toBe(3);

    const [doomed] = (await fp.flags.schedules.list("doomed")).data;
    expect(doomed).toMatchObject({ id: lost.id, status: "failed", failure: { reason: "flag_not_found" } });
    const failed = (await fp.flags.schedules.list("kept", { status: "failed" })).data;
    const invalid = failed.find((f) => f.id === stale.id);
    expect(invalid).toMatchObject({ failure: { reason: "invalid_changes" } });
    expect(invalid!.failure!.message).toContain("rules.0.percentage");
    expect(failed.find((f) => f.id === orphan.id)).toMatchObject({
      failure: { reason: "invalid_changes", message: expect.stringContaining("dependency") },
    });
    expect(await fp.flags.get("kept")).toMatchObject({ enabled: false });
    await fp.close();
  });

  it("never applies a schedule deleted before it was due, and refuses bad input", async () => {
    const fp = await open(storage());
    await fp.flags.create({ key: "maybe" });
    const made = await fp.flags.schedules.create("maybe", {
      at: new Date(clock.now() + 5_000).toISOString(),
      changes: { enabled: true },
    });
    await fp.flags.schedules.delete("maybe", made.id);
    await expect(fp.flags.schedules.delete("maybe", made.id)).rejects.toMatchObject({ code: "not_found" });
    clock.advance(10_000);
    expect(await worker(fp, storage()).runOnce()).toBe(0);
    expect(await fp.flags.get("maybe")).toMatchObject({ enabled: false });

    const refuse = async (key: string, input: unknown) =>
      fp.flags.schedules.create(key, input as never).then(
        () => "accepted",
        (error: FlagpostError) => `${error.code} ${error.details?.map((d) => d.path).join() ?? ""}`.trim(),
      );
    const soon = new Date(clock.now() + 1_000).toISOString();
    expect(await refuse("maybe", { at: soon, changes: {} })).toBe("validation_error changes");
    expect(await refuse("maybe", { at: soon, changes: { description: "x" } })).toBe(
      "validation_error changes.description",
    );
    expect(await refuse("maybe", { at: soon, changes: { key: "other" } })).toBe("validation_error changes.key");
    expect(await refuse("maybe", { at: "tomorrow", changes: { enabled: true } })).toBe("validation_error at");
    expect(await refuse("maybe", { at: "2026-09-01T12:00:00", changes: { enabled: true } })).toBe(
      "validation_error at",
    );
    const pastAt = new Date(clock.now() - 61_000).toISOString();
    expect(await refuse("maybe", { at: pastAt, changes: { enabled: true } })).toBe("validation_error at");
    expect(await refuse("nope", { at: soon, changes: { enabled: true } })).toBe("not_found");
    expect(await refuse("maybe", { at: soon, changes: { enabled: true }, extra: 1 })).toBe("validation_error extra");
    await fp.close();
  });

  it("lists by time in pages, filtered by status, and names neither flag nor schedule it never had", async () => {
    const fp = await open(storage());
    await fp.flags.create({ key: "paged" });
    const made = [];
    for (const offset of [3_000, 1_000, 2_000])
      made.push(
        await fp.flags.schedules.create("paged", {
          at: new Date(clock.now() + offset).toISOString(),
          changes: { enabled: offset !== 2_000 },
        }),
      );
    const first = await fp.flags.schedules.list("paged", { limit: 2 });
    expect(first.data.map((s) => s.id)).toEqual([made[1]!.id, made[2]!.id]);
    const second = await fp.flags.schedules.list("paged", { limit: 2, cursor: first.nextCursor! });
    expect(second).toEqual({ data: [made[0]] });
    expect((await fp.flags.schedules.list("paged", { status: "applied" })).data).toEqual([]);
    await expect(fp.flags.schedules.list("never")).rejects.toMatchObject({ code: "not_found" });
    await expect(fp.flags.schedules.list("paged", { cursor: "bm9wZQ" })).rejects.toMatchObject({
      code: "validation_error",
    });
    await fp.close();
  });
});

it("applies a schedule on its own once due, with the worker started by ready()", async () => {
  const fp = createFlagpost({ storage: memoryStorage(), logger: silentLogger });
  await fp.ready();
  try {
    await fp.flags.create({ key: "timed" });
    const at = Date.now() + 200;
    const made = await fp.flags.schedules.create("timed", {
      at: new Date(at).toISOString(),
      changes: { enabled: true },
    });
    const deadline = Date.now() + 10_000;
    while (!fp.isEnabled("timed") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fp.isEnabled("timed")).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(at); // never early
    expect((await fp.flags.schedules.list("timed")).data[0]).toMatchObject({ id: made.id, status: "applied" });
  } finally {
    await fp.close();
  }
});
