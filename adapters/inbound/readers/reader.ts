import type { DeliveryAction, RecipientFacts } from "../../../src/emails/index.js";

/**
 * A reader of one family of bounce messages (an MTA's or a mailbox provider's own plain-text
 * format), like Sisimai's per-MTA modules. The report parser tries the readers in order on every
 * message that holds no machine-readable delivery-status part; the first that recognises the
 * message answers. A reader never throws and never reads anything but the message it is given.
 */
export interface BounceReader {
  /** The family, as docs and the corpus runner name it (`exim`, `qmail`, `gmail`…). */
  readonly name: string;
  /** The recipients this message reports on, or undefined when it is not this family's bounce. */
  read(message: BounceMessage): ReaderResult | undefined;
}

/** The message as readers see it: decoded, one string per part, nothing to parse MIME again. */
export interface BounceMessage {
  /** Top-level header fields, lower-cased names, every value in order (unfolded). */
  headers: ReadonlyMap<string, readonly string[]>;
  /** The Subject, decoded ("" when absent). */
  subject: string;
  /** The From address text as written ("" when absent). */
  from: string;
  /** The decoded body text: the text/plain part(s) of the message in order, joined; CRLF and CR as LF. */
  text: string;
  /** Each attached or embedded part with its content type (lower case) and decoded text. */
  parts: readonly { contentType: string; text: string }[];
}

/** One recipient a reader found: the facts classification needs (status, reply code, words…). */
export interface ReaderRecipient extends RecipientFacts {
  /** The address (bare or as written: the parser normalises it); absent when the message names none. */
  recipient?: string;
  action?: DeliveryAction;
}

export interface ReaderResult {
  recipients: ReaderRecipient[];
  /**
   * The header block of the original message as the bounce quotes it (Message-ID, Return-Path, To…),
   * when the reader found where it starts; the parser matches the email by it.
   */
  returnedHeaders?: string;
}
