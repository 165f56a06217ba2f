import type { EpochMs } from "./instants.js";
import type { PageRequest } from "./webhooks.js";

// ---------------------------------------------------------------------------------------------
// Sending domains: the domains mail is sent from, their DKIM keys and DNS verification

/** The domain's state as the resend SDK's `DomainStatus` names it (the subset flagpost reaches). */
export type SendingDomainStatus = "not_started" | "pending" | "verified" | "failed";

/** One DNS record the domain publishes, with its last checked status (the resend SDK's shape). */
export interface SendingDomainDnsRecord {
  record: "DKIM" | "SPF" | "DMARC";
  name: string;
  type: "TXT" | "MX";
  ttl: string;
  status: "not_started" | "pending" | "verified" | "failed" | "temporary_failure";
  value: string;
  priority?: number;
}

export interface SendingDomainRecord {
  /** A UUIDv7. */
  id: string;
  /** The domain, lower-cased. Unique. */
  name: string;
  region: string;
  status: SendingDomainStatus;
  /** The DKIM selector (`flagpost<n>`). */
  selector: string;
  /** The DKIM private key: a PEM, or sealed under the server's secret (`aes256gcm:…`). */
  privateKey: string;
  /** The return-path label under the domain (`bounces` by default). */
  returnPath: string;
  /** The records to publish, as last checked. */
  records: SendingDomainDnsRecord[];
  openTracking: boolean;
  clickTracking: boolean;
  tls: "opportunistic" | "enforced";
  createdAt: EpochMs;
  updatedAt: EpochMs;
  /** When DNS was last asked; absent until the first verification. */
  checkedAt?: EpochMs;
  /** When the reputation guard paused the domain; absent while it sends. */
  pausedAt?: EpochMs;
}

export interface SendingDomainChanges {
  status?: SendingDomainStatus;
  records?: SendingDomainDnsRecord[];
  openTracking?: boolean;
  clickTracking?: boolean;
  tls?: "opportunistic" | "enforced";
  checkedAt?: EpochMs;
  updatedAt: EpochMs;
}

/**
 * Reads of the domains, and the two writes that need nothing else: insert and delete. Changes
 * (verification, settings, pause, resume) are made in a unit of work (unit-of-work.ts,
 * DomainRowStore), where the core reads the row under its lock and stores the domain events.
 */
export interface DomainRepository {
  /** Stores a new domain. A name (or id) already stored → `FlagpostError("conflict")`. */
  insertDomain(domain: SendingDomainRecord): Promise<void>;
  /** The domain with this id; undefined when none. */
  getDomain(id: string): Promise<SendingDomainRecord | undefined>;
  /** The domain with this (lower-cased) name; undefined when none. */
  getDomainByName(name: string): Promise<SendingDomainRecord | undefined>;
  /** Up to `page.limit` domains, newest first (id descending), paged by id. */
  listDomains(page: PageRequest): Promise<SendingDomainRecord[]>;
  /** Removes the domain; true when it existed. */
  deleteDomain(id: string): Promise<boolean>;
  /**
   * Up to `limit` domains that have been verified at least once (status `pending`, `verified` or
   * `failed`) whose `checkedAt` is before `checkedBefore`, least recently checked first: the
   * periodic recheck's work.
   */
  listDomainsToRecheck(checkedBefore: EpochMs, limit: number): Promise<SendingDomainRecord[]>;
}
