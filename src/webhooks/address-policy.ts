import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { FlagpostError } from "../errors.js";

/**
 * Which addresses a webhook may reach (docs/webhooks.md, "SSRF policy"). Unless private networks
 * are allowed, every address that is not on the public internet is refused: loopback, private,
 * link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254 included), carrier-grade NAT,
 * unique-local, multicast, reserved and documentation ranges. IPv6 forms that carry an IPv4
 * address in their last 32 bits (IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96,
 * IPv4-compatible ::/96, NAT64's well-known 64:ff9b::/96) are judged by that IPv4 address, since a
 * host or a NAT64 gateway delivers them to it: [::7f00:1] is 127.0.0.1. 6to4 (2002::/16), Teredo
 * and local-use NAT64 are refused whole: they reach their IPv4 address through a relay or
 * translator we know nothing about.
 */

const IPV4_BLOCKED: [string, number][] = [
  ["0.0.0.0", 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
];

const IPV6_BLOCKED: [string, number][] = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001::", 32], // Teredo
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["fc00::", 7], // unique-local (fd00::/8 included: fd00:ec2::254 is EC2's metadata)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

const BLOCKED = new BlockList();
for (const [network, prefix] of IPV4_BLOCKED) BLOCKED.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of IPV6_BLOCKED) BLOCKED.addSubnet(network, prefix, "ipv6");

/** The eight 16-bit groups of a valid IPv6 address (a trailing dotted quad becomes the last two). */
function groupsOf(address: string): number[] {
  let text = address.split("%", 1)[0]!; // a zone (fe80::1%eth0) names an interface, not bits
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const [a, b, c, d] = text
      .slice(lastColon + 1)
      .split(".")
      .map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = text.slice(0, lastColon + 1);
    if (!text.endsWith("::")) text = text.slice(0, -1); // "::ffff:" → "::ffff"; "::" stays
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const front = parse(head);
  const back = [...parse(rest ?? ""), ...tail];
  if (rest === undefined) return [...front, ...tail];
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** The IPv4 address an IPv6 address carries in its last 32 bits, for the prefixes that deliver to it. */
export function embeddedIpv4(address: string): string | undefined {
  if (isIP(address) !== 6) return undefined;
  const g = groupsOf(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const carries =
    (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) || // NAT64 well-known prefix, 64:ff9b::/96
    zeros(0, 6) || // IPv4-compatible, ::/96 (:: and ::1 included: 0.0.0.0 and 0.0.0.1 are refused too)
    (zeros(0, 5) && g[5] === 0xffff) || // IPv4-mapped, ::ffff:0:0/96
    (zeros(0, 4) && g[4] === 0xffff && g[5] === 0); // IPv4-translated, ::ffff:0:0:0/96
  if (!carries) return undefined;
  return [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff].join(".");
}

/** Whether `address` (an IP address) is outside the public internet. Anything that is not an address counts as private. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return BLOCKED.check(address, "ipv4");
  const inner = embeddedIpv4(address);
  return inner !== undefined ? BLOCKED.check(inner, "ipv4") : BLOCKED.check(address, "ipv6");
}

/** An address as a refusal names it: with the IPv4 address it carries, when it carries one. */
export function describeAddress(address: string): string {
  const inner = embeddedIpv4(address);
  return inner === undefined ? address : `${address} (${inner})`;
}

/** What a refusal says about the way to allow private networks, in process and for `flagpost serve`. */
export const ALLOW_PRIVATE_HINT =
  "private networks are not allowed (webhooks.allowPrivateNetworks: true, or FLAGPOST_WEBHOOK_ALLOW_PRIVATE=true for flagpost serve, allows them)";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Turns a host name into addresses; the system resolver by default, injectable for tests. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** The URL's host as an address or a name: IPv6 literals lose their brackets. */
export function hostOf(url: URL): string {
  const host = url.hostname;
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** Why an endpoint URL is not acceptable before any lookup (scheme, form), or undefined. */
export function endpointFormProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return "must be an absolute http:// or https:// URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must use http:// or https://";
  if (hostOf(url) === "") return "must name a host";
  return undefined;
}

/**
 * Checks an endpoint when it is created or changed: its form, and, unless private networks are
 * allowed, that its host resolves and every address it resolves to is public. Throws
 * `validation_error` naming `endpoint`. Deliveries check the address again when they connect.
 */
export async function checkEndpoint(
  endpoint: string,
  policy: { allowPrivateNetworks: boolean; resolve: Resolver },
): Promise<void> {
  const refuse = (message: string) =>
    new FlagpostError("validation_error", `"endpoint" ${message}`, { details: [{ path: "endpoint", message }] });
  const form = endpointFormProblem(endpoint);
  if (form) throw refuse(form);
  if (policy.allowPrivateNetworks) return;
  const host = hostOf(new URL(endpoint));
  let addresses: ResolvedAddress[];
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      throw refuse(`host "${host}" could not be resolved`);
    }
    if (addresses.length === 0) throw refuse(`host "${host}" could not be resolved`);
  }
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  if (inside)
    throw refuse(
      `resolves to ${describeAddress(inside.address)}, a loopback, private or link-local address; ${ALLOW_PRIVATE_HINT}`,
    );
}
