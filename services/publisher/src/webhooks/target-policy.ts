import { BlockList, isIP } from "node:net";
import { isPublicAddress } from "../media/address-policy.ts";

/** Where webhooks may be sent. */
export type WebhookTargetPolicy = {
  /**
   * Whether this deployment's own network (loopback, private, CGNAT and unique-local addresses)
   * may receive webhooks (`PUBLISHER_WEBHOOK_ALLOW_PRIVATE`, false by default). Link-local
   * addresses (cloud metadata at 169.254.169.254 among them), multicast and reserved ranges stay
   * refused either way.
   */
  allowPrivate: boolean;
};

/** The longest webhook URL taken. */
export const MAX_WEBHOOK_URL_LENGTH = 2_048;

const ownNetwork = new BlockList();
for (const [network, prefix] of [
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["172.16.0.0", 12],
  ["192.168.0.0", 16],
] as const) {
  ownNetwork.addSubnet(network, prefix, "ipv4");
}
ownNetwork.addAddress("::1", "ipv6");
ownNetwork.addSubnet("fc00::", 7, "ipv6");

/** Cloud metadata services inside those ranges (AWS's IPv6 one, Alibaba Cloud's): never allowed. */
const metadata = new BlockList();
metadata.addAddress("fd00:ec2::254", "ipv6");
metadata.addAddress("100.100.100.200", "ipv4");

/**
 * Loopback, private (RFC 1918), CGNAT or unique-local: an address of the deployment's own network
 * (never a cloud metadata service's).
 */
export function isOwnNetworkAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const family = isIP(bare);
  if (family === 0) return false;
  const type = family === 4 ? "ipv4" : "ipv6";
  return ownNetwork.check(bare, type) && !metadata.check(bare, type);
}

/** Whether a webhook may connect to this IP address: a public one, or the own network when allowed. */
export function mayConnect(address: string, policy: WebhookTargetPolicy): boolean {
  return isPublicAddress(address) || (policy.allowPrivate && isOwnNetworkAddress(address));
}

/** Why a URL cannot receive webhooks, or undefined when it can (as far as it shows before DNS). */
export function webhookUrlProblem(text: string, policy: WebhookTargetPolicy): string | undefined {
  if (text.length > MAX_WEBHOOK_URL_LENGTH) return `is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not a URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http:// or https:// URL";
  if (url.username || url.password) return "must not carry credentials";
  // A fully qualified name's final dot (`localhost.`) names the same host, and so do several
  // (`localhost..`, which the URL parser keeps as written): the check must see the bare name.
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();
  if (isIP(host)) {
    return mayConnect(host, policy) ? undefined : "points at an address webhooks are never sent to";
  }
  const loopbackName = host === "localhost" || host.endsWith(".localhost");
  if (loopbackName && !policy.allowPrivate) return "points at an address webhooks are never sent to";
  return undefined;
}
