import { z } from "zod";
import type { Clock } from "../ports/clock.js";
import { notFound } from "../errors.js";
import { uuidv7 } from "../ids.js";
import { isStorableText } from "../input-policy.js";
import { type ListView, ONE_CURSOR, oneCursor, pageFields, readPage } from "../pagination.js";
import type { Storage, SuppressionOrigin, SuppressionRecord } from "../ports/storage/index.js";
import { isoFromMs } from "../time.js";
import { parseInput } from "../validation.js";
import { ADDRESS_RULE } from "./schema.js";
import { parseAddress } from "./addresses.js";
import { suppressionWrites } from "./suppression-writes.js";
import { soleRecipient, UnsubscribeLinks } from "./unsubscribe-links.js";

/**
 * The resend SDK's `Suppression`; list entries leave out `object`. An address a report put there
 * also says why: `reason` (Sisimai's names, `feedback` for a complaint), `bounce_type`
 * (`Permanent`, or `Transient` after repeated soft bounces) and `diagnostic` (the server's words).
 */
export interface SuppressionView {
  object: "suppression";
  id: string;
  email: string;
  origin: SuppressionOrigin;
  source_id: string | null;
  created_at: string;
  reason?: string;
  bounce_type?: string;
  diagnostic?: string;
}

export type SuppressionListEntry = Omit<SuppressionView, "object">;

/** Most addresses one batch adds or removes. */
export const MAX_SUPPRESSION_BATCH = 1000;

/** An address as given (`Ann <ann@example.com>` too), kept bare and lower-cased: the list compares case-insensitively. */
const address = z.string().transform((text, ctx) => {
  const parsed = parseAddress(text);
  if (parsed) return parsed.address.toLowerCase();
  ctx.addIssue({ code: "custom", message: ADDRESS_RULE });
  return z.NEVER;
});
const identifier = z.string().min(1).max(320);
const batchOf = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(MAX_SUPPRESSION_BATCH);

const addSchema = z.strictObject({ email: address });
const addBatchSchema = z.strictObject({ emails: batchOf(address) });
const removeBatchSchema = z.union([
  z.strictObject({ emails: batchOf(address) }),
  z.strictObject({ ids: batchOf(identifier) }),
]);
const listSchema = z
  .strictObject({ ...pageFields, origin: z.enum(["bounce", "complaint", "manual", "unsubscribe"]).optional() })
  .refine(oneCursor, ONE_CURSOR);
/** What `list` accepts: Resend's page query and an `origin` (GET /v1/suppressions's query). */
export type ListSuppressionsInput = z.input<typeof listSchema>;

function toView(entry: SuppressionRecord): SuppressionView {
  const view: SuppressionView = {
    object: "suppression",
    id: entry.id,
    email: entry.email,
    origin: entry.origin,
    source_id: entry.sourceId ?? null,
    created_at: isoFromMs(entry.createdAt),
  };
  if (entry.reason !== undefined) view.reason = entry.reason;
  if (entry.bounceType !== undefined) view.bounce_type = entry.bounceType;
  if (entry.diagnostic !== undefined) view.diagnostic = entry.diagnostic;
  return view;
}

/** An id or an address, as the list stores it: addresses lower-cased. */
function key(idOrEmail: string): string {
  return idOrEmail.includes("@") ? idOrEmail.trim().toLowerCase() : idOrEmail;
}

/**
 * The suppression list by hand (Resend's `suppressions` resource): addresses flagpost will not
 * mail. Bounces and complaints are added by the delivery reports themselves (SuppressionPolicy). Every change
 * stores `suppression.added` / `suppression.removed` with it.
 */
export class SuppressionService {
  readonly #storage: Storage;
  readonly #clock: Clock;
  readonly #links: UnsubscribeLinks | undefined;

  constructor(storage: Storage, clock: Clock, links?: UnsubscribeLinks) {
    this.#storage = storage;
    this.#clock = clock;
    this.#links = links;
  }

  /**
   * The address an unsubscribe token (from an email's List-Unsubscribe link) was made for;
   * undefined for a token that is malformed, forged, or names no stored email.
   */
  async unsubscribeTarget(token: string): Promise<string | undefined> {
    const id = this.#links && UnsubscribeLinks.emailIdOf(token);
    if (id === undefined) return undefined;
    const email = await this.#storage.emails.getEmail(id);
    const recipient = email && soleRecipient(email);
    return recipient !== undefined && (await this.#links!.verify(token, recipient)) ? recipient : undefined;
  }

  /**
   * A one-click unsubscribe (RFC 8058): puts the token's address on the list with
   * `origin: "unsubscribe"` and the email as `source_id`, storing `suppression.added` only when
   * the address was not there yet, so a second click changes nothing. Undefined for a bad token.
   */
  async unsubscribe(token: string): Promise<{ email: string; added: boolean } | undefined> {
    const address = await this.unsubscribeTarget(token);
    if (address === undefined) return undefined;
    const now = this.#clock.now();
    const entry: SuppressionRecord = {
      id: uuidv7(now),
      email: address,
      origin: "unsubscribe",
      sourceId: token.split(".")[0]!,
      createdAt: now,
    };
    const { added } = await suppressionWrites(this.#storage).add([entry], now);
    return { email: address, added: added.length > 0 };
  }

  /** Adds one address (`origin: "manual"`); an address already there is answered as it is. */
  async add(input: { email: string }): Promise<SuppressionView> {
    const { email } = parseInput(addSchema, input);
    const [stored] = await this.#add([email]);
    return stored!;
  }

  /** Adds 1–1,000 addresses at once, answered in request order (`{data: [suppression]}`). */
  async addBatch(input: { emails: string[] }): Promise<{ data: SuppressionView[] }> {
    const { emails } = parseInput(addBatchSchema, input);
    return { data: await this.#add(emails) };
  }

  /** Newest first, `limit` 1–100 (default 20), `after`/`before` an id, optionally of one origin. */
  async list(input: ListSuppressionsInput = {}): Promise<ListView<SuppressionListEntry>> {
    return readPage(
      input,
      (page, query) =>
        this.#storage.suppressions.listSuppressions(query.origin === undefined ? {} : { origin: query.origin }, page),
      (row) => {
        const { object: _, ...entry } = toView(row);
        return entry;
      },
      listSchema,
    );
  }

  /** The entry with this id or for this address; `not_found` when none. */
  async get(idOrEmail: string): Promise<SuppressionView> {
    const found = isStorableText(idOrEmail)
      ? await this.#storage.suppressions.getSuppression(key(idOrEmail))
      : undefined;
    if (!found) throw notFound("Suppression", idOrEmail);
    return toView(found);
  }

  /** Removes the entry with this id or for this address; `not_found` when none. */
  async remove(idOrEmail: string): Promise<{ object: "suppression"; id: string; deleted: true }> {
    const removed = isStorableText(idOrEmail) ? await this.#remove([key(idOrEmail)]) : [];
    if (removed.length === 0) throw notFound("Suppression", idOrEmail);
    return { object: "suppression", id: removed[0]!.id, deleted: true };
  }

  /**
   * Removes 1–1,000 entries named by `emails` or by `ids`, answered in request order; one that
   * names nothing is answered `{id: <as given>, deleted: false}`.
   */
  async removeBatch(
    input: { emails: string[] } | { ids: string[] },
  ): Promise<{ data: { object: "suppression"; id: string; deleted: boolean }[] }> {
    const parsed = parseInput(removeBatchSchema, input);
    const keys = "emails" in parsed ? parsed.emails : parsed.ids;
    const removed = await this.#remove(keys.filter(isStorableText));
    const byKey = new Map<string, SuppressionRecord>();
    for (const entry of removed) byKey.set(entry.id, entry).set(entry.email, entry);
    return {
      data: keys.map((k) => {
        const entry = byKey.get(k);
        return { object: "suppression", id: entry?.id ?? k, deleted: entry !== undefined };
      }),
    };
  }

  async #add(emails: string[]): Promise<SuppressionView[]> {
    const now = this.#clock.now();
    const entries: SuppressionRecord[] = emails.map((email) => ({
      id: uuidv7(now),
      email,
      origin: "manual",
      createdAt: now,
    }));
    const { stored } = await suppressionWrites(this.#storage).add(entries, now);
    return stored.map(toView);
  }

  #remove(keys: string[]): Promise<SuppressionRecord[]> {
    return suppressionWrites(this.#storage).remove(keys, this.#clock.now());
  }
}
