import { BlockList, isIP } from "node:net";

/**
 * Addresses a server-side fetch must never reach: loopback, private, shared (CGNAT), link-local
 * (cloud metadata at 169.254.169.254 and fd00:ec2::254 included), multicast, reserved and
 * documentation ranges, and IPv6 forms that embed an IPv4 address.
 */
const forbidden = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  forbidden.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  forbidden.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address (`::ffff:127.0.0.1`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:0{0,4}:){0,5}(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address.replace(/^::/, "0:"));
  if (match) return match[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1] ?? "0", 16);
  const low = Number.parseInt(hex[2] ?? "0", 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

/** True when a server-side fetch may connect to this IP address (a public unicast address). */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const family = isIP(bare);
  if (family === 4) return !forbidden.check(bare, "ipv4");
  if (family !== 6) return false;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined) return isIP(inner) === 4 && !forbidden.check(inner, "ipv4");
  return !forbidden.check(bare, "ipv6");
}
