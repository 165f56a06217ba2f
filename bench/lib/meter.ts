/** Wall and CPU time of the measured calls only (data generation is excluded on both sides). */
export class Meter {
  wallMs = 0;
  cpuUs = 0;
  events = 0;
  async time<T>(events: number, work: () => Promise<T> | T): Promise<T> {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await work();
    this.wallMs += performance.now() - started;
    const used = process.cpuUsage(cpu);
    this.cpuUs += used.user + used.system;
    this.events += events;
    return result;
  }
  get perSecond(): number {
    return this.events / (this.wallMs / 1000);
  }
  get perCpuSecond(): number {
    return this.events / (this.cpuUs / 1e6);
  }
}
