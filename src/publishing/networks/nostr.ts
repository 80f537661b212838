import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import { decode, neventEncode, npubEncode } from 'nostr-tools/nip19';
import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import {
  NOT_MADE,
  NetworkError,
  type AttemptLookup,
  type CommentLookup,
  type CommentRequest,
  type ConnectedAccount,
  type ConnectionCheck,
  type ConnectionMethod,
  type ConnectorChannel,
  type NetworkConnector,
  type NetworkPost,
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import type { NetworkHttp, NetworkHttpOptions } from './network-http.js';
import { queryRelays, sendToRelays, type NostrEvent, type RelayOutcome } from './nostr-relays.js';
import { bunkerAddress, openRemoteSigner, type BunkerAddress } from './nostr-signer.js';

/**
 * Nostr: kind-1 notes signed with the person's key and sent to the person's relays ([N 01, 10, 19, 92],
 * NETWORKS.md "Seven more networks").
 *
 * Rules kept here:
 * - Herald holds the private key (nsec or hex), sealed in the channel's vault like every secret; it signs here and
 *   is never sent anywhere. Or a NIP-46 remote signer (a bunker:// address, which wins when both are given) signs
 *   instead, and Herald holds only its own client key for talking to it (nostr-signer.ts);
 * - a note is published when at least one relay accepts it (OK true, or `duplicate:`): relays are independent
 *   copies, and one that refuses does not undo the others. Each relay's answer is kept with the attempt (its
 *   handle). No relay accepting is a failure classed by the most hopeful relay: one that may have stored it makes
 *   the outcome unknown, one that was busy or unreachable a retry, all refusing for good a permanent failure that
 *   names each relay's reason;
 * - never twice: the signed event is recorded with the attempt before it is sent; an unknown outcome is settled by
 *   sending that same event again (same id: a relay that has it answers `duplicate:` or OK true, never a second
 *   note), never by asking a signer again, and an attempt that recorded no event sent none;
 * - media are URLs at the end of the text with NIP-92 imeta tags (the alt text where given), fetched by readers'
 *   clients; a first comment is a NIP-10 reply: ["e", root, relay, "root", author] and ["p", author];
 * - a comment whose outcome is unknown is found by asking the relays for the account's replies to the note with
 *   the same text; events read back count only with a valid signature by the account's key;
 * - live sync lists the account's notes (replies left out) with the reactions (kind 7) and replies the relays hold.
 */
const PERMALINK_BASE = 'https://njump.me/';
const MAX_RELAYS = 10;

interface NostrCredentials {
  /** The account's key, hex; absent when a remote signer signs. */
  secretKey?: string;
  /** The remote signer, with the client key Herald talks to it with (hex). */
  bunker?: BunkerAddress & { clientSecretKey: string };
  pubkey: string;
  relays: string[];
}

export class NostrNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.nostr;
  readonly connection: ConnectionMethod = {
    kind: 'credentials',
    fields: [
      {
        name: 'privateKey',
        required: false,
        secret: true,
        description:
          'The private key of the account (nsec1... or 64 hex characters); Herald signs with it and never sends it. ' +
          'Or leave it empty and give a remote signer below',
      },
      {
        name: 'bunker',
        required: false,
        secret: true,
        description:
          "A remote signer's bunker://... address (nsec.app, Amber): it signs each note, " +
          'and Herald never holds the key',
      },
      {
        name: 'relays',
        required: true,
        secret: false,
        description: 'The relays to publish to (wss://...), separated by commas or spaces',
      },
    ],
  };

  constructor(
    private readonly http: NetworkHttp,
    private readonly options: NetworkHttpOptions,
    private readonly now: () => number,
  ) {}

  configured(): boolean {
    return true;
  }

  async signIn(fields: Record<string, string>): Promise<ConnectedAccount> {
    if (!fields.privateKey && !fields.bunker) {
      throw new NetworkError(
        'permanent',
        "give the account's private key (nsec1...), or a remote signer's bunker://... address to sign instead",
      );
    }
    const relays = relayList(fields.relays);
    // Every relay is checked now (the SSRF guard, the handshake), so a wrong address is refused while the person is
    // here.
    for (const relay of relays) (await this.http.socket(relay)).terminate();
    const { pubkey, signing } = fields.bunker
      ? await this.connectSigner(bunkerAddress(fields.bunker))
      : this.keyOf(fields.privateKey);
    const { events } = await queryRelays(
      this.http,
      relays,
      { kinds: [0], authors: [pubkey], limit: 1 },
      this.options.timeoutMs,
    );
    const profile = profileOf(events.find((event) => event.pubkey === pubkey && verifyEvent(event)));
    return {
      networkAccountId: pubkey,
      handle: npubEncode(pubkey),
      displayName: profile.name,
      avatarUrl: profile.picture,
      credentials: { ...signing, pubkey, relays },
      expiresAt: null,
      textLimit: null,
    };
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    const credentials = await this.credentials(channel);
    const relays = credentials.relays.join(' ');
    return credentials.secretKey ? { privateKey: credentials.secretKey, relays } : { relays };
  }

  private keyOf(privateKey: string) {
    const secretKey = secretKeyFrom(privateKey);
    return { pubkey: getPublicKey(secretKey), signing: { secretKey: Buffer.from(secretKey).toString('hex') } };
  }

  /** Herald's client key is made now and kept: the signer, once it took the connect (and its secret), knows it. */
  private async connectSigner(bunker: BunkerAddress) {
    const clientSecretKey = generateSecretKey();
    const signer = await openRemoteSigner(this.http, bunker, clientSecretKey, {
      waitMs: this.options.timeoutMs,
      connect: true,
    });
    try {
      const pubkey = await signer.publicKey();
      const kept = { ...bunker, secret: null, clientSecretKey: Buffer.from(clientSecretKey).toString('hex') };
      return { pubkey, signing: { bunker: kept } };
    } finally {
      await signer.close();
    }
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const credentials = await this.credentials(request.channel);
    const media = [...request.imageUrls, ...request.videoUrls];
    const altTexts = stringList(request.channelOptions?.altText);
    const content = media.length > 0 ? `${request.text}\n\n${media.join('\n')}` : request.text;
    const tags = media.map((url, index) => [
      'imeta',
      `url ${url}`,
      ...(altTexts[index] ? [`alt ${altTexts[index]}`] : []),
    ]);
    const event = await this.sign(credentials, content, tags);
    await request.recordHandle(JSON.stringify({ event }));
    const outcomes = await sendToRelays(this.http, credentials.relays, event, this.options.timeoutMs);
    await request.recordHandle(JSON.stringify({ event, relays: report(outcomes) }));
    if (outcomes.some((o) => o.verdict === 'accepted')) return this.published(credentials, event);
    throw failure(outcomes);
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | typeof NOT_MADE | undefined> {
    // The event is recorded before it is sent: an attempt without one sent nothing.
    if (!lookup.handle) return NOT_MADE;
    const credentials = await this.credentials(lookup.channel);
    const event = (JSON.parse(lookup.handle) as { event: NostrEvent }).event;
    if (event.pubkey !== credentials.pubkey || !verifyEvent(event)) return undefined;
    const outcomes = await sendToRelays(this.http, credentials.relays, event, this.options.timeoutMs);
    if (outcomes.some((o) => o.verdict === 'accepted')) return this.published(credentials, event);
    return outcomes.every((o) => o.verdict === 'permanent') ? NOT_MADE : undefined;
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const credentials = await this.credentials(request.channel);
    const event = await this.sign(credentials, request.text, [
      ['e', request.networkPostId, credentials.relays[0], 'root', credentials.pubkey],
      ['p', credentials.pubkey],
    ]);
    const outcomes = await sendToRelays(this.http, credentials.relays, event, this.options.timeoutMs);
    if (outcomes.some((o) => o.verdict === 'accepted')) return { networkCommentId: event.id };
    throw failure(outcomes);
  }

  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const credentials = await this.credentials(lookup.channel);
    const { events, reached } = await queryRelays(
      this.http,
      credentials.relays,
      { kinds: [1], authors: [credentials.pubkey], '#e': [lookup.networkPostId] },
      this.options.timeoutMs,
    );
    if (reached === 0) throw new NetworkError('retry_later', "none of the channel's relays could be reached");
    const reply = events.find(
      (event) => event.content === lookup.text && event.pubkey === credentials.pubkey && verifyEvent(event),
    );
    return reply ? { networkCommentId: reply.id } : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const credentials = await this.credentials(channel);
    const limit = Math.min(100, Math.max(1, page.limit));
    const filter = {
      kinds: [1],
      authors: [credentials.pubkey],
      limit,
      ...(page.cursor ? { until: Number(page.cursor) } : {}),
    };
    const { events, reached } = await queryRelays(this.http, credentials.relays, filter, this.options.timeoutMs);
    if (reached === 0) throw new NetworkError('retry_later', "none of the channel's relays could be reached");
    const mine = events.filter((event) => event.pubkey === credentials.pubkey && verifyEvent(event));
    const notes = mine.filter((event) => !event.tags.some((tag) => tag[0] === 'e')).slice(0, limit);
    const metrics = await this.reactions(
      credentials,
      notes.map((note) => note.id),
    );
    const posts: NetworkPost[] = notes.map((note) => ({
      ...this.published(credentials, note),
      attemptKey: null,
      text: note.content,
      imageUrls: note.tags
        .filter((tag) => tag[0] === 'imeta')
        .map((tag) => tag.find((v) => v.startsWith('url '))?.slice(4) ?? '')
        .filter(Boolean),
      metrics: metrics.get(note.id) ?? { reactions: 0, replies: 0 },
    }));
    const oldest = mine.at(-1);
    return { posts, nextCursor: mine.length >= limit && oldest ? String(oldest.created_at - 1) : null };
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const credentials = await this.credentials(channel);
    const { reached, problems } = await queryRelays(
      this.http,
      credentials.relays,
      { kinds: [0], authors: [credentials.pubkey], limit: 1 },
      this.options.timeoutMs,
    );
    const found = problems.map((problem) => `The relay ${problem}; posts go to the others.`);
    if (credentials.bunker) {
      const { clientSecretKey, ...bunker } = credentials.bunker;
      try {
        const signer = await openRemoteSigner(this.http, bunker, Buffer.from(clientSecretKey, 'hex'), {
          waitMs: this.options.timeoutMs,
          connect: false,
        });
        try {
          if ((await signer.publicKey()) !== credentials.pubkey)
            found.push('The remote signer now signs for another account: reconnect with its new bunker:// address.');
        } finally {
          await signer.close();
        }
      } catch (error) {
        found.push(`The remote signer: ${error instanceof Error ? error.message : String(error)}.`);
      }
    }
    if (reached === 0)
      found.push("None of the channel's relays could be reached: nothing can be published until one answers.");
    return { account: npubEncode(credentials.pubkey), grantedScopes: null, problems: found };
  }

  private async reactions(credentials: NostrCredentials, ids: string[]): Promise<Map<string, Record<string, number>>> {
    const counts = new Map(ids.map((id) => [id, { reactions: 0, replies: 0 }]));
    if (ids.length === 0) return counts;
    const { events } = await queryRelays(
      this.http,
      credentials.relays,
      { kinds: [1, 7], '#e': ids },
      this.options.timeoutMs,
    );
    for (const event of events) {
      const target = event.tags
        .filter((tag) => tag[0] === 'e')
        .map((tag) => tag[1])
        .find((id) => counts.has(id));
      if (!target || !verifyEvent(event)) continue;
      const count = counts.get(target)!;
      if (event.kind === 7) count.reactions++;
      else count.replies++;
    }
    return counts;
  }

  private async sign(credentials: NostrCredentials, content: string, tags: string[][]): Promise<NostrEvent> {
    const template = { kind: 1, created_at: Math.floor(this.now() / 1000), tags, content };
    if (credentials.secretKey) return finalizeEvent(template, Buffer.from(credentials.secretKey, 'hex'));
    const { clientSecretKey, ...bunker } = credentials.bunker!;
    const signer = await openRemoteSigner(this.http, bunker, Buffer.from(clientSecretKey, 'hex'), {
      waitMs: this.options.timeoutMs,
      connect: false,
    });
    try {
      const event = await signer.sign(template);
      if (event.pubkey !== credentials.pubkey)
        throw new NetworkError('reconnect_needed', 'the remote signer now signs for another account');
      return event;
    } finally {
      await signer.close();
    }
  }

  private published(credentials: NostrCredentials, event: NostrEvent): PublishedPost {
    const nevent = neventEncode({ id: event.id, author: credentials.pubkey, relays: credentials.relays.slice(0, 2) });
    return {
      networkPostId: event.id,
      permalinkUrl: `${PERMALINK_BASE}${nevent}`,
      publishedAt: event.created_at * 1000,
    };
  }

  private async credentials(channel: ConnectorChannel): Promise<NostrCredentials> {
    return (await channel.vault.read()).credentials as unknown as NostrCredentials;
  }
}

function report(outcomes: RelayOutcome[]): Record<string, string> {
  return Object.fromEntries(outcomes.map((o) => [o.relay, `${o.verdict}: ${o.message}`]));
}

function failure(outcomes: RelayOutcome[]): NetworkError {
  const words = `no relay accepted the note (${outcomes.map((o) => `${o.relay}: ${o.message}`).join('; ')})`;
  if (outcomes.some((o) => o.verdict === 'unknown')) return new NetworkError('unknown_outcome', words);
  if (outcomes.some((o) => o.verdict === 'retry')) return new NetworkError('retry_later', words);
  return new NetworkError('permanent', words);
}

function secretKeyFrom(raw: string): Uint8Array {
  const value = raw.trim();
  if (/^[0-9a-f]{64}$/i.test(value)) return Uint8Array.from(Buffer.from(value, 'hex'));
  if (value.startsWith('npub1'))
    throw new NetworkError(
      'permanent',
      'that is the public key (npub); Herald needs the private key (nsec1...) to sign',
    );
  try {
    const decoded = decode(value);
    if (decoded.type === 'nsec') return decoded.data;
  } catch {
    // Not bech32 at all: the message below says what is expected.
  }
  throw new NetworkError('permanent', 'the private key is neither an nsec1... key nor 64 hex characters');
}

function relayList(raw: string): string[] {
  const relays = [...new Set(raw.split(/[\s,]+/).filter(Boolean))];
  if (relays.length === 0) throw new NetworkError('permanent', 'name at least one relay (wss://...)');
  if (relays.length > MAX_RELAYS) throw new NetworkError('permanent', `name at most ${MAX_RELAYS} relays`);
  return relays.map((relay) => {
    let url: URL;
    try {
      url = new URL(relay);
    } catch {
      throw new NetworkError('permanent', `"${relay}" is not a relay address; give it as wss://relay.example`);
    }
    if (url.protocol !== 'wss:' && url.protocol !== 'ws:')
      throw new NetworkError('permanent', `"${relay}" is not a relay address; relays are wss:// URLs`);
    return url.toString().replace(/\/$/, '');
  });
}

function profileOf(event: NostrEvent | undefined): { name: string | null; picture: string | null } {
  try {
    const profile = event ? JSON.parse(event.content) : {};
    const name = profile.display_name || profile.name;
    return {
      name: typeof name === 'string' ? name : null,
      picture: typeof profile.picture === 'string' ? profile.picture : null,
    };
  } catch {
    return { name: null, picture: null };
  }
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
