import type { SendResult, SendRun } from "./emails-sender.js";
import type { Child } from "./lib/child.js";

/** One row of bench:emails or bench:signing: what the sender runs, and how the table names it. */
export interface Variant {
  id: string;
  label: string;
  storage: string;
  run: Omit<SendRun, "port" | "count" | "concurrency">;
}

export interface Sample {
  e2e: number;
  accepted: number;
  p50: number;
  p99: number;
  /** CPU time of the sending process per email, µs: a cost measure that noise from other processes on the machine moves less than rates. */
  cpuPerEmail: number;
  /** CPU time of the sending process's main thread (the event loop) per email, µs; undefined where the OS does not say. */
  loopCpuPerEmail: number | undefined;
}

/** CPU used so far by the sending process and by its event-loop thread, µs (emails-sender.ts). */
export interface CpuTimes {
  process: number;
  loop: number | undefined;
}

/** Concurrent callers of send/sendBatch and concurrent sendMail calls for the floor. */
export const CONCURRENCY = 10;

/** One run of `variant`: `count` emails from the sender to the sink, timed to the sink's last arrival. */
export async function measure(
  sender: Child,
  sink: Child<{ port: number }>,
  variant: Variant,
  count: number,
): Promise<Sample> {
  await sink.call("reset");
  const cpu0 = await sender.call<CpuTimes>("cpu");
  const result = await sender.call<SendResult>("run", {
    ...variant.run,
    port: sink.ready.port,
    count,
    concurrency: CONCURRENCY,
  } satisfies SendRun);
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(
      () =>
        reject(
          new Error(`${variant.label} (${variant.storage}): the sink did not receive ${count} emails within 5 minutes`),
        ),
      300_000,
    ).unref(),
  );
  const lastAt = await Promise.race([sink.call<number>("waitFor", count), timeout]);
  const cpu1 = await sender.call<CpuTimes>("cpu");
  const statuses = await sender.call<Record<string, number>>("finish", count);
  const received = await sink.call<{ received: number; signed: number; distinct: number; duplicates: number }>("stats");
  if (received.received !== count || received.duplicates > 0 || received.signed !== (variant.run.signed ? count : 0))
    throw new Error(`${variant.label}: the sink received ${JSON.stringify(received)} for ${count} emails`);
  if (variant.run.kind === "flagpost" && statuses.sent !== count)
    throw new Error(`${variant.label} (${variant.storage}): statuses afterwards ${JSON.stringify(statuses)}`);
  return {
    e2e: count / ((lastAt - result.startedAt) / 1000),
    accepted: count / ((result.acceptedAt - result.startedAt) / 1000),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerEmail: (cpu1.process - cpu0.process) / count,
    loopCpuPerEmail: cpu1.loop === undefined || cpu0.loop === undefined ? undefined : (cpu1.loop - cpu0.loop) / count,
  };
}
