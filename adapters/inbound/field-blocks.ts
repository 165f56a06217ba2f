/**
 * The body of a `message/delivery-status` part (RFC 3464 §2.1) or a `message/feedback-report`
 * part (RFC 5965 §3) is a sequence of RFC 822-style header blocks separated by blank lines: the
 * per-message fields, then one block per recipient. mailparser hands these parts over as bytes
 * (they are not MIME structure), so this reads them: unfolds continuation lines and keeps every
 * value of a field, in order, under its lower-cased name. Nothing here throws.
 */

export type FieldBlock = ReadonlyMap<string, readonly string[]>;

/** At most this many blocks are read: a DSN for a thousand recipients is already unusual. */
const MAX_BLOCKS = 1_000;
/** At most this many fields per block, and characters per value. */
const MAX_FIELDS = 200;
const MAX_VALUE = 8 * 1024;

/** The first value of `name` (lower case) in `block`, trimmed; undefined when absent or empty. */
export function field(block: FieldBlock | undefined, name: string): string | undefined {
  const value = block?.get(name)?.[0]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

/** The fields that open a DSN recipient block (RFC 3464 §2.3 puts Original-Recipient first; AOL, Final-Recipient). */
const RECIPIENT_OPENERS = new Set(["original-recipient", "final-recipient"]);
/** Fields of one recipient: a block holding one of these is a recipient's, not the per-message fields. */
const PER_RECIPIENT = new Set([
  ...RECIPIENT_OPENERS,
  "action",
  "status",
  "diagnostic-code",
  "remote-mta",
  "x-actual-recipient",
]);
/** Fields that end a recipient's block in practice: the other recipient field after one of these is the next recipient. */
const RECIPIENT_CLOSERS = new Set(["status", "diagnostic-code", "remote-mta", "last-attempt-date", "will-retry-until"]);

/**
 * True when `name` opens a new recipient block although no blank line came first, as AOL writes
 * them: a recipient field right after the per-message fields, a second one of the same name, or
 * the other one after the previous recipient's Status or Diagnostic-Code. Original-Recipient and
 * Final-Recipient side by side, in either order and with Action before them, stay one recipient.
 */
function opensRecipientBlock(current: ReadonlyMap<string, string[]>, name: string): boolean {
  if (!RECIPIENT_OPENERS.has(name) || current.size === 0) return false;
  if (current.has(name)) return true;
  const keys = [...current.keys()];
  if (!keys.some((key) => RECIPIENT_OPENERS.has(key))) return !keys.some((key) => PER_RECIPIENT.has(key));
  return keys.some((key) => RECIPIENT_CLOSERS.has(key));
}

/**
 * Reads `text` into its blocks; a block with no field (stray text) is dropped. With
 * `recipientBlocks` (a delivery-status part), a recipient field also starts a new block.
 */
export function parseFieldBlocks(text: string, options: { recipientBlocks?: boolean } = {}): FieldBlock[] {
  const blocks: FieldBlock[] = [];
  let current = new Map<string, string[]>();
  let last: { values: string[]; index: number } | undefined;
  let fields = 0;
  const close = () => {
    if (current.size > 0) blocks.push(current);
    current = new Map();
    last = undefined;
    fields = 0;
  };
  for (const line of text.split(/\r?\n|\r/)) {
    if (blocks.length >= MAX_BLOCKS) break;
    if (line.trim() === "") {
      close();
      continue;
    }
    if ((line.startsWith(" ") || line.startsWith("\t")) && last) {
      const joined = `${last.values[last.index]} ${line.trim()}`;
      last.values[last.index] = joined.length <= MAX_VALUE ? joined : joined.slice(0, MAX_VALUE);
      continue;
    }
    const colon = line.indexOf(":");
    // A line with no field name (or one with spaces in it) is not a field: skip it.
    if (colon <= 0 || /[\s]/.test(line.slice(0, colon)) || fields >= MAX_FIELDS) {
      last = undefined;
      continue;
    }
    const name = line.slice(0, colon).toLowerCase();
    if (options.recipientBlocks === true && opensRecipientBlock(current, name)) close();
    const value = line.slice(colon + 1).trim();
    let values = current.get(name);
    if (values === undefined) {
      values = [];
      current.set(name, values);
    }
    values.push(value.length <= MAX_VALUE ? value : value.slice(0, MAX_VALUE));
    last = { values, index: values.length - 1 };
    fields += 1;
  }
  close();
  return blocks;
}

/** The header block at the top of a message (up to its first blank line), as one FieldBlock. */
export function parseHeaderBlock(message: string): FieldBlock | undefined {
  const end = message.search(/\r?\n\r?\n|\r\r/);
  return parseFieldBlocks(end < 0 ? message : message.slice(0, end))[0];
}
