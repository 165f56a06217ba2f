import { domainToASCII } from "node:url";
import type { MailAddress } from "../ports/transport.js";

/**
 * Email address syntax accepted by flagpost (docs/emails.md, "Addresses"): `local@domain`,
 * `Name <local@domain>`, `"Name, with specials" <local@domain>` or `<local@domain>`.
 * Deliberately narrower than RFC 5322: no comments, no quoted local parts, no domain literals,
 * no groups, and a domain needs at least two labels. What is accepted is unambiguous, so the
 * transport gets a name and an address and never re-parses a string (where a comma in a name
 * could turn one recipient into two).
 */

export const MAX_ADDRESS_TEXT = 512;
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;
const MAX_NAME = 256;

const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** A domain label: letters (any script, for internationalised domains), digits, inner hyphens. */
const LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}\p{M}-]{0,61}[\p{L}\p{N}\p{M}])?$/u;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The address and its domain in ASCII (IDNA), lower case, or undefined when `text` is not a bare address flagpost accepts. */
function parseBare(text: string): Omit<MailAddress, "name"> | undefined {
  const at = text.lastIndexOf("@");
  if (at <= 0 || at === text.length - 1) return undefined;
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local.length > MAX_LOCAL || !LOCAL_PART.test(local)) return undefined;
  const ascii = checkedDomain(domain);
  return ascii === undefined ? undefined : { address: text, domain: ascii };
}

/**
 * Domains already checked, with their ASCII form ("" when not accepted): mail goes to few domains
 * over and over, and checking one (labels, IDNA) costs more than the rest of an address.
 */
const checkedDomains = new Map<string, string>();
const MAX_CHECKED_DOMAINS = 1_000;

/** `domain` in ASCII (IDNA), lower case, or undefined when flagpost does not accept it. */
function checkedDomain(domain: string): string | undefined {
  let ascii = checkedDomains.get(domain);
  if (ascii === undefined) {
    ascii = asciiIfAccepted(domain);
    if (checkedDomains.size >= MAX_CHECKED_DOMAINS) checkedDomains.clear();
    checkedDomains.set(domain, ascii);
  }
  return ascii === "" ? undefined : ascii;
}

function asciiIfAccepted(domain: string): string {
  if (domain.length > MAX_DOMAIN) return "";
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return "";
  if (/^[0-9]+$/.test(labels.at(-1)!)) return ""; // 10.0.0.1 is not a domain
  // "" also when not convertible to an ASCII (IDNA) name
  return domainToASCII(domain).toLowerCase();
}

function unquote(name: string): string | undefined {
  if (!name.startsWith('"')) return name.includes('"') ? undefined : name;
  if (name.length < 2 || !name.endsWith('"')) return undefined;
  let out = "";
  for (let i = 1; i < name.length - 1; i++) {
    const c = name[i]!;
    if (c === "\\") {
      i += 1;
      if (i >= name.length - 1) return undefined;
      out += name[i];
    } else if (c === '"') {
      return undefined;
    } else {
      out += c;
    }
  }
  return out;
}

/** The name, address and domain in `text`, or undefined when it is not an address flagpost accepts. */
export function parseAddress(text: string): MailAddress | undefined {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_ADDRESS_TEXT || CONTROL.test(trimmed)) return undefined;
  if (!trimmed.endsWith(">")) return parseBare(trimmed);
  const open = trimmed.lastIndexOf("<");
  if (open < 0) return undefined;
  const bare = parseBare(trimmed.slice(open + 1, -1));
  if (bare === undefined) return undefined;
  const rawName = trimmed.slice(0, open).trim();
  if (rawName === "") return bare;
  if (/[<>]/.test(rawName.replace(/^"(?:[^"\\]|\\.)*"$/, ""))) return undefined;
  const name = unquote(rawName);
  if (name === undefined || name.length > MAX_NAME) return undefined;
  return name.trim() === "" ? bare : { name, ...bare };
}

/** An address as a request gave it, trimmed (what the outbox stores), and as parsed. */
export interface GivenAddress {
  text: string;
  mail: MailAddress;
}

/** `text` read once at acceptance: the stored text and the parsed address; undefined when not accepted. */
export function givenAddress(text: string): GivenAddress | undefined {
  const mail = parseAddress(text);
  return mail === undefined ? undefined : { text: text.trim(), mail };
}

export function isAddress(text: string): boolean {
  return parseAddress(text) !== undefined;
}

/** The bare address of an accepted address text (throws on one that is not accepted). */
export function mailAddress(text: string): MailAddress {
  const parsed = parseAddress(text);
  if (!parsed) throw new TypeError(`not an accepted address: ${JSON.stringify(text)}`);
  return parsed;
}

/** The domain of a bare address, in ASCII (IDNA), lower case. */
export function asciiDomain(address: string): string {
  return domainToASCII(address.slice(address.lastIndexOf("@") + 1)).toLowerCase();
}
