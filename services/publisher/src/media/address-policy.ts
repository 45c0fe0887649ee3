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

/** The 16 bytes of an IPv6 address (a dotted IPv4 tail allowed), or undefined when it is not one. */
function ipv6Bytes(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groups = (part: string) =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const words = [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
  return words.flatMap((word) => [word >> 8, word & 255]);
}

/**
 * The IPv4 address an IPv6 address carries in its last 32 bits when it is IPv4-mapped
 * (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`) or IPv4-compatible (`::/96`, deprecated):
 * forms a stack may route to the IPv4 address itself.
 */
function embeddedIpv4(bytes: number[]): string | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const isFfff = (at: number) => bytes[at] === 255 && bytes[at + 1] === 255;
  const carries = (zeros(0, 10) && isFfff(10)) || (zeros(0, 8) && isFfff(8) && zeros(10, 12)) || zeros(0, 12);
  return carries ? bytes.slice(12).join(".") : undefined;
}

/** True when a server-side fetch may connect to this IP address (a public unicast address). */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const family = isIP(bare);
  if (family === 4) return !forbidden.check(bare, "ipv4");
  const bytes = family === 6 ? ipv6Bytes(bare) : undefined;
  if (!bytes) return false;
  const inner = embeddedIpv4(bytes);
  if (inner !== undefined) return !forbidden.check(inner, "ipv4");
  return !forbidden.check(bare, "ipv6");
}
