import { createPrivateKey, type KeyObject } from "node:crypto";
import type { Clock } from "../ports/clock.js";
import type { SendingDomainRecord, Storage } from "../ports/storage/index.js";
import type { DkimSigning, MailAddress } from "../ports/transport.js";
import { openPrivateKey } from "./key-sealing.js";

/**
 * The header fields a signature covers: those Gmail, Microsoft and Yahoo sign on their own mail,
 * plus the list headers of RFC 8058 (a one-click unsubscribe is only honoured when DKIM covers
 * List-Unsubscribe and List-Unsubscribe-Post). A field the message lacks is left out by the signer.
 */
export const SIGNED_HEADERS: readonly string[] = [
  "From",
  "Sender",
  "Reply-To",
  "To",
  "Cc",
  "Subject",
  "Date",
  "Message-ID",
  "In-Reply-To",
  "References",
  "MIME-Version",
  "Content-Type",
  "Content-Transfer-Encoding",
  "Content-ID",
  "Content-Description",
  "List-Id",
  "List-Help",
  "List-Unsubscribe",
  "List-Unsubscribe-Post",
  "List-Subscribe",
  "List-Post",
  "List-Owner",
  "List-Archive",
  "Feedback-ID",
];

/** How mail from a verified domain goes out: signed with its key, bounces to its return-path host. */
export interface DomainSigner {
  dkim: DkimSigning;
  /** `<return path>.<domain>`, the host whose MX and SPF records the domain published. */
  returnPathHost: string;
}

/** How long a domain looked up stays cached when this process did not change it (another process may have). */
export const DOMAIN_LOOKUP_TTL_MS = 5_000;
/** Most sender domains cached at once; past it the oldest lookup is dropped. */
const MAX_CACHED = 1_000;

export interface SendingDomainsDeps {
  storage: Storage;
  clock: Clock;
  /** The key DKIM private keys were sealed with (key-sealing.ts). */
  sealingKey: () => Promise<Buffer | undefined>;
}

interface Lookup {
  at: number;
  domain: Promise<SendingDomainRecord | undefined>;
}

/**
 * Which sender domains are verified, and their unsealed DKIM keys, cached in process: a send
 * looks its `from` domain up at most once per {@link DOMAIN_LOOKUP_TTL_MS} and opens a key once.
 * Changes made through this process's DomainService are seen at once (`forget`); a domain another
 * process removes or finds unverified stops being used within the TTL.
 */
export class SendingDomains {
  readonly #lookups = new Map<string, Lookup>();
  /** Opened keys by domain id, with the sealed value they came from (a new key replaces it). */
  readonly #keys = new Map<string, { sealed: string; key: KeyObject }>();

  readonly #deps: SendingDomainsDeps;

  constructor(deps: SendingDomainsDeps) {
    this.#deps = deps;
  }

  /** The verified domain the address `from` (as send() parsed it) belongs to, if there is one. */
  async verifiedDomainOf(from: MailAddress): Promise<SendingDomainRecord | undefined> {
    const name = from.domain;
    const now = this.#deps.clock.now();
    let lookup = this.#lookups.get(name);
    if (lookup === undefined || now - lookup.at >= DOMAIN_LOOKUP_TTL_MS) {
      const domain = this.#deps.storage.domains.getDomainByName(name);
      lookup = { at: now, domain };
      this.#lookups.delete(name);
      if (this.#lookups.size >= MAX_CACHED) this.#lookups.delete(this.#lookups.keys().next().value!);
      this.#lookups.set(name, lookup);
      // A failed read is not remembered: the next send asks again.
      domain.catch(() => this.#lookups.get(name) === lookup && this.#lookups.delete(name));
    }
    const domain = await lookup.domain;
    if (domain?.status === "verified") return domain;
    if (domain) this.#keys.delete(domain.id);
    return undefined;
  }

  /** The key and return path to send mail from `from` with; undefined when its domain is not verified. */
  async signerFor(from: MailAddress): Promise<DomainSigner | undefined> {
    const domain = await this.verifiedDomainOf(from);
    if (!domain) return undefined;
    let key = this.#keys.get(domain.id);
    if (key?.sealed !== domain.privateKey) {
      const pem = openPrivateKey(domain.privateKey, await this.#deps.sealingKey());
      key = { sealed: domain.privateKey, key: createPrivateKey(pem) };
      this.#keys.set(domain.id, key);
    }
    return {
      dkim: {
        domainName: domain.name,
        keySelector: domain.selector,
        privateKey: key.key,
        signedHeaders: SIGNED_HEADERS,
      },
      returnPathHost: `${domain.returnPath}.${domain.name}`,
    };
  }

  /** Drops what is cached: a domain was added, verified, failed or removed in this process. */
  forget(): void {
    this.#lookups.clear();
    this.#keys.clear();
  }
}
