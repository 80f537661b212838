import net from 'node:net';

/**
 * Which resolved addresses an outbound request to a user-supplied URL may reach.
 *
 * Rules enforced:
 * - loopback, unspecified, private (10/8, 172.16/12, 192.168/16, fc00::/7), carrier-grade NAT (100.64/10),
 *   link-local (169.254/16 including the cloud metadata address 169.254.169.254, fe80::/10), multicast,
 *   reserved, benchmarking and documentation ranges are refused;
 * - IPv6 forms that embed an IPv4 address (IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96 (SIIT),
 *   IPv4-compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) are judged by the IPv4 address they carry,
 *   so ::ffff:127.0.0.1 is loopback too;
 * - local-use NAT64 (64:ff9b:1::/48, RFC 8215) can reach any private network behind the translator and
 *   Teredo (2001::/32) tunnels through a relay Herald cannot judge: both are refused whole, and the
 *   reason names the Teredo client address (the last 32 bits XOR 0xffffffff); the caller is told only that
 *   the address is not allowed (safe-fetch.ts).
 */
const blockedV4 = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blockedV4.addSubnet(prefix, bits, 'ipv4');
}

const blockedV6 = new net.BlockList();
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  // Teredo (2001::/32) lies inside this IETF protocol-assignment block.
  ['2001::', 23],
  ['64:ff9b:1::', 48],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blockedV6.addSubnet(prefix, bits, 'ipv6');
}

/** The 8 16-bit groups of an IPv6 address (handles "::" and a dotted IPv4 tail). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array(missing).fill('0'), ...tailGroups].map((group) => parseInt(group, 16));
}

function ipv4FromGroups(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The IPv4 address an IPv6 address carries, when it is one of the embedding forms. */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  const firstFiveZero = g.slice(0, 5).every((group) => group === 0);
  if (firstFiveZero && (g[5] === 0xffff || g[5] === 0) && !(g[5] === 0 && g[6] === 0 && g[7] <= 1)) {
    return ipv4FromGroups(g[6], g[7]);
  }
  if (g.slice(0, 4).every((group) => group === 0) && g[4] === 0xffff && g[5] === 0) return ipv4FromGroups(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((group) => group === 0)) {
    return ipv4FromGroups(g[6], g[7]);
  }
  if (g[0] === 0x2002) return ipv4FromGroups(g[1], g[2]);
  return undefined;
}

/** Why a tunnelling or translating IPv6 address is refused whatever it carries. */
function tunnelReason(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (g[0] === 0x2001 && g[1] === 0) {
    return (
      `${address} is a Teredo tunnel address (to ${ipv4FromGroups(g[6] ^ 0xffff, g[7] ^ 0xffff)}), ` +
      'which Herald does not fetch through'
    );
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) {
    return `${address} is a local-use NAT64 address, which can reach private networks behind the translator`;
  }
  return undefined;
}

/** Why an address may not be reached, or undefined when it is a public unicast address. */
export function blockedAddressReason(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 4) {
    return blockedV4.check(address, 'ipv4')
      ? `${address} is a loopback, private, link-local or reserved address`
      : undefined;
  }
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) {
      return blockedAddressReason(v4) === undefined ? undefined : `${address} carries the non-public address ${v4}`;
    }
    const tunnel = tunnelReason(address);
    if (tunnel !== undefined) return tunnel;
    return blockedV6.check(address, 'ipv6')
      ? `${address} is a loopback, private, link-local or reserved address`
      : undefined;
  }
  return `${address} is not an IP address`;
}
