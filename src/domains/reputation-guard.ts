import type { Clock } from "../ports/clock.js";
import { uuidv7 } from "../ids.js";
import { changeDomain, type DomainChange } from "./domain-writes.js";
import type { EmailRecord, ReputationMark, SendingDomainRecord, Storage } from "../ports/storage/index.js";
import { isoFromMs } from "../time.js";
import {
  exceedsThresholds,
  type ReputationSettings,
  type ReputationView,
  reputationView,
  sendingDomainOf,
} from "./reputation-window.js";
import { summaryView } from "./views.js";

/**
 * The reputation guard (docs/domains.md, "Reputation guard"). Rates are computed when a report
 * lands, the only moment they can rise: the report marks its email, then the domain's last
 * `window` sends are counted (one bounded read on every backend) and, past a threshold, the domain
 * is paused by a change under its row lock that stores `domain.paused` once. Claims pass over the
 * paused domain's mail (storage's claim filter); new sends from it get a `paused` event.
 */
export class ReputationGuard {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly settings: ReputationSettings;

  constructor(deps: { storage: Storage; clock: Clock }, settings: ReputationSettings) {
    this.#storage = deps.storage;
    this.#clock = deps.clock;
    this.settings = settings;
  }

  /** A report that counts against the email's domain was applied: mark it, pause the domain when past a threshold. */
  async noteReport(email: Pick<EmailRecord, "id" | "content">, mark: ReputationMark): Promise<void> {
    await this.#storage.emails.markEmailReputation(email.id, mark);
    const name = sendingDomainOf(email.content);
    if (name === undefined) return;
    const domain = await this.#storage.domains.getDomainByName(name);
    if (!domain || domain.pausedAt !== undefined) return;
    const counts = await this.#storage.emails.domainReputation(name, this.settings.window);
    if (!exceedsThresholds(counts, this.settings)) return;
    const at = this.#clock.now();
    const view = reputationView(counts);
    const pause: DomainChange = (before) =>
      before.pausedAt === undefined ? { ...before, pausedAt: at, updatedAt: at } : null;
    await changeDomain(this.#storage, domain.id, pause, (stored) => [
      {
        id: uuidv7(this.#clock.now()),
        type: "domain.paused",
        createdAt: at,
        data: { ...summaryView(stored), paused: true, paused_at: isoFromMs(at), ...view, ...this.#thresholds() },
      },
    ]);
  }

  /** New emails were stored (with their `from` domain as send() read it): each one whose domain is paused gets a `paused` event (it waits). */
  async noteAccepted(emails: readonly { record: EmailRecord; sendingDomain: string }[]): Promise<void> {
    const paused = new Map<string, boolean>();
    for (const { record, sendingDomain: name } of emails) {
      if (!paused.has(name))
        paused.set(name, (await this.#storage.domains.getDomainByName(name))?.pausedAt !== undefined);
      if (!paused.get(name)) continue;
      await this.#storage.emails.transitionEmail(record.id, {
        from: ["queued"],
        to: "queued",
        event: { type: "paused", at: this.#clock.now(), detail: { domain: name } },
      });
    }
  }

  /** The domain's rates over its window, as GET /v1/domains/{id} shows them. */
  async rates(domain: SendingDomainRecord): Promise<ReputationView> {
    return reputationView(await this.#storage.emails.domainReputation(domain.name, this.settings.window));
  }

  #thresholds() {
    const { window, bounceRate, complaintRate } = this.settings;
    return { window, bounce_threshold: bounceRate, complaint_threshold: complaintRate };
  }
}
