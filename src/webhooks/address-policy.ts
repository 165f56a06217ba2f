import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { FlagpostError } from "../errors.js";

/**
 * Which addresses a webhook may reach (docs/webhooks.md, "SSRF policy"). Unless private networks
 * are allowed, every address that is not on the public internet is refused: loopback, private,
 * link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254 included), carrier-grade NAT,
 * unique-local, multicast, reserved and documentation ranges, and IPv6 forms that embed an IPv4
 * address (6to4, Teredo, local NAT64), which could smuggle one of those in. IPv4-mapped IPv6
 * addresses (::ffff:10.0.0.1) are judged by the IPv4 address they carry: BlockList checks them
 * against the IPv4 ranges itself (and an ::ffff:0:0/96 rule would match every IPv4 address).
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

/** Whether `address` (an IP address) is outside the public internet. Anything that is not an address counts as private. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 6 ? "ipv6" : "ipv4");
}

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
      `resolves to ${inside.address}, a loopback, private or link-local address; private networks are not allowed`,
    );
}
