import net from 'node:net';
import { ValidationError, type FieldProblem } from '../errors.js';
import { findCapabilities, type NetworkCapabilities } from '../networks/capabilities.js';
import { libraryRefOf } from './library-files.js';

/**
 * Whether the networks can reach this Herald's address, for those that fetch a post's media from its URL themselves
 * (`pulledFromUrl` in the capabilities table: Instagram, Threads, Facebook, Pinterest's and TikTok's images).
 *
 * Rules kept here:
 * - BASE_URL is public when it is https and its host is a domain name outside the names kept for local use
 *   (`localhost`, a name without a dot, `.localhost`, `.local`, `.internal`, `.lan`, `.home.arpa`, `.test`,
 *   `.example`, `.invalid`), or an address outside the loopback, private, link-local, shared (CGNAT), reserved
 *   and unique-local ranges; plain http counts as not public, since the pulling networks fetch https;
 * - a post carrying a file of Herald's own library for such a network, on an instance that is not public, is
 *   refused when written to go out, saying what to set: the network would otherwise fail it then (and the worker
 *   fails one written before, with the same words); a draft is kept, as it goes nowhere until BASE_URL may be
 *   public; URLs elsewhere are the person's to vouch for;
 * - connecting such a channel on such an instance succeeds, with a warning saying the same.
 */
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home.arpa', '.test', '.example', '.invalid'];

export function isPublicBaseUrl(baseUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:') return false;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (net.isIPv4(host)) return isPublicIPv4(host);
  if (net.isIPv6(host)) return isPublicIPv6(host);
  return host.includes('.') && !LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
}

function isPublicIPv4(address: string): boolean {
  const [a, b] = address.split('.').map(Number);
  return !(
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19))
  );
}

function isPublicIPv6(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPublicIPv4(mapped[1]);
  const first = parseInt(address.split(':')[0] || '0', 16);
  // ::, ::1 and the other leading-zero forms; fc00::/7 unique local; fe80::/10 link-local; ff00::/8 multicast.
  return first !== 0 && (first & 0xfe00) !== 0xfc00 && (first & 0xffc0) !== 0xfe80 && (first & 0xff00) !== 0xff00;
}

function unreachableWords(baseUrl: string, displayName: string): string {
  return (
    `${displayName} fetches media from Herald's address, and this Herald is ` +
    `at ${baseUrl}, which ${displayName} cannot reach; ` +
    'set BASE_URL to a public https address, or give the file as a public URL elsewhere.'
  );
}

/** What a connection to this network should know on this instance, or null when nothing. */
export function connectWarning(baseUrl: string, capabilities: NetworkCapabilities): string | null {
  if (!capabilities.media.pulledFromUrl?.length || isPublicBaseUrl(baseUrl)) return null;
  return (
    `${capabilities.displayName} fetches media from Herald's address, and this Herald is at ${baseUrl}, which ` +
    `${capabilities.displayName} cannot reach: posts with files from Herald's media library will be refused until ` +
    'BASE_URL is a public https address. Media at public URLs elsewhere still work.'
  );
}

/** Why this post's library files cannot go to this network from this instance, or undefined when they can. */
export function unreachableLibraryMedia(
  baseUrl: string,
  capabilities: NetworkCapabilities,
  post: { imageUrls: readonly string[]; videoUrls: readonly string[] },
): { path: string; message: string } | undefined {
  const pulled = capabilities.media.pulledFromUrl ?? [];
  if (pulled.length === 0 || isPublicBaseUrl(baseUrl)) return undefined;
  const files = [
    ...(pulled.includes('image') ? post.imageUrls.map((url, i) => ({ url, path: `imageUrls[${i}]` })) : []),
    ...(pulled.includes('video') ? post.videoUrls.map((url, i) => ({ url, path: `videoUrls[${i}]` })) : []),
  ];
  const own = files.find((file) => libraryRefOf(baseUrl, file.url));
  return own && { path: own.path, message: unreachableWords(baseUrl, capabilities.displayName) };
}

/** A post's files, or a part's of its thread. */
type MediaUrls = { imageUrls: readonly string[]; videoUrls: readonly string[] };

/** Refuses a write whose library files go to a network that cannot fetch them from this instance. */
export function requireReachableLibraryMedia(
  baseUrl: string,
  channels: readonly { id: string; network: string }[],
  post: MediaUrls & { thread?: readonly MediaUrls[] | null },
): void {
  const problems: FieldProblem[] = [];
  // A thread's parts go to the same network, each with its own files.
  const parts = [
    { prefix: '', files: post },
    ...(post.thread ?? []).map((part, i) => ({ prefix: `thread[${i}].`, files: part })),
  ];
  for (const channel of channels) {
    const capabilities = findCapabilities(channel.network);
    for (const { prefix, files } of parts) {
      const problem = capabilities && unreachableLibraryMedia(baseUrl, capabilities, files);
      if (!problem) continue;
      problems.push({ path: `${prefix}${problem.path}`, message: `Channel ${channel.id}: ${problem.message}` });
    }
  }
  if (problems.length > 0) throw new ValidationError(problems[0].message, problems);
}
