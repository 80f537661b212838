import type WebSocket from 'ws';
import { AbstractSimplePool, type AbstractPoolConstructorOptions } from 'nostr-tools/abstract-pool';
import { BunkerSigner, type BunkerPointer } from 'nostr-tools/nip46';
import { verifyEvent, type EventTemplate } from 'nostr-tools/pure';
import { NetworkError } from '../../domain/networks/connector.js';
import type { NetworkHttp } from './network-http.js';
import type { NostrEvent } from './nostr-relays.js';

/**
 * A NIP-46 remote signer ("bunker"): Herald asks it over its relays to sign, and never holds the account's key.
 *
 * Rules kept here:
 * - a bunker is named by its bunker:// address (the signer's key, its relays, a secret it may ask for once); Herald
 *   talks to it with a client key of its own, made at connect and kept sealed with the channel, so the signer knows
 *   Herald again by that key without the secret;
 * - the signer's relays are reached through network-http.ts like every relay (the SSRF guard, pinned addresses):
 *   nostr-tools' BunkerSigner speaks NIP-46 over a pool whose WebSockets are opened there;
 * - a signer that does not answer in time is worth another try (nothing was signed that Herald could have sent);
 *   one that answers with an error refused Herald (a permission withdrawn), which a person settles by reconnecting;
 * - what it signs counts only as the event asked for (kind, content, tags) with a valid signature.
 */
export interface BunkerAddress {
  signerPubkey: string;
  relays: string[];
  secret: string | null;
}

export function bunkerAddress(raw: string): BunkerAddress {
  const value = raw.trim();
  const match = /^bunker:\/\/([0-9a-f]{64})\/?(\?.*)?$/i.exec(value);
  if (!match) {
    throw new NetworkError(
      'permanent',
      "that is not a remote signer's address: copy the bunker://... address your signer (nsec.app, Amber) shows",
    );
  }
  const query = new URLSearchParams(match[2] ?? '');
  const relays = [...new Set(query.getAll('relay'))];
  if (relays.length === 0)
    throw new NetworkError('permanent', 'the bunker:// address names no relay (relay=wss://...)');
  return { signerPubkey: match[1].toLowerCase(), relays, secret: query.get('secret') };
}

export interface RemoteSigner {
  /** The account's public key, as the signer says (it may differ from the signer's own key). */
  publicKey(): Promise<string>;
  /** The event signed as asked (its signature checked); whose key signed it is the caller's to check. */
  sign(template: EventTemplate): Promise<NostrEvent>;
  close(): Promise<void>;
}

/** Opens a session with the bunker under Herald's client key; `connect` first when this is a new connection. */
export async function openRemoteSigner(
  http: NetworkHttp,
  bunker: BunkerAddress,
  clientSecretKey: Uint8Array,
  options: { waitMs: number; connect: boolean },
): Promise<RemoteSigner> {
  const pool = new AbstractSimplePool({
    verifyEvent: (event) => verifyEvent(event),
    // Only the browser interface's members the relays use are given (open, message, send, close).
    websocketImplementation: guardedWebSocket(
      http,
    ) as unknown as AbstractPoolConstructorOptions['websocketImplementation'],
    maxWaitForConnection: options.waitMs,
  });
  const pointer: BunkerPointer = { pubkey: bunker.signerPubkey, relays: bunker.relays, secret: bunker.secret };
  const signer = BunkerSigner.fromBunker(clientSecretKey, pointer, { pool });
  const close = async () => {
    await signer.close();
    pool.destroy();
  };
  const ask = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new NetworkError('retry_later', `the remote signer did not answer ${what} in time`)),
        options.waitMs,
      );
    });
    try {
      return await Promise.race([call(), late]);
    } catch (error) {
      if (error instanceof NetworkError) throw error;
      // The signer's own answer is an error string (NIP-46 `error`); anything else is the way to it failing.
      if (typeof error === 'string')
        throw new NetworkError('reconnect_needed', `the remote signer refused ${what} (${error})`);
      const words = error instanceof AggregateError ? error.errors.map(String).join('; ') : String(error);
      throw new NetworkError('retry_later', `the remote signer's relays could not be reached (${words})`);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    if (options.connect) await ask('the connection', () => signer.connect({ name: 'Herald' }));
  } catch (error) {
    await close();
    throw error;
  }
  let pubkey: string | undefined;
  const publicKey = async () => {
    pubkey ??= await ask('for the public key', () => signer.getPublicKey());
    if (!/^[0-9a-f]{64}$/.test(pubkey)) throw new NetworkError('permanent', 'the remote signer gave no public key');
    return pubkey;
  };
  return {
    publicKey,
    async sign(template) {
      const signed = await ask('a signature', () => signer.signEvent(template));
      if (
        signed.content !== template.content ||
        signed.kind !== template.kind ||
        JSON.stringify(signed.tags) !== JSON.stringify(template.tags)
      ) {
        throw new NetworkError('permanent', 'the remote signer signed something other than the note asked for');
      }
      return signed as NostrEvent;
    },
    close,
  };
}

/**
 * The browser WebSocket interface nostr-tools' relays expect, over a socket network-http.ts opened: the guard's
 * checks run before any byte goes out, and a refused or unreachable relay is an error event as in a browser.
 */
function guardedWebSocket(http: NetworkHttp) {
  return class GuardedWebSocket {
    static readonly CONNECTING = 0;
    static readonly OPEN = 1;
    static readonly CLOSING = 2;
    static readonly CLOSED = 3;
    readyState = 0;
    onopen: (() => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    onclose: ((event: { code?: number; message?: string }) => void) | null = null;
    onmessage: ((event: { data: string }) => void) | null = null;
    private socket: WebSocket | undefined;

    constructor(url: string) {
      http.socket(url).then(
        (socket) => {
          if (this.readyState !== 0) {
            socket.terminate();
            return;
          }
          this.socket = socket;
          this.readyState = 1;
          socket.on('message', (data) => this.onmessage?.({ data: data.toString() }));
          socket.on('error', () => this.onerror?.({}));
          socket.on('close', (code) => {
            this.readyState = 3;
            this.onclose?.({ code });
          });
          this.onopen?.();
        },
        (error: unknown) => {
          this.readyState = 3;
          this.onerror?.(error);
          this.onclose?.({ message: error instanceof Error ? error.message : 'could not be reached' });
        },
      );
    }

    send(data: string): void {
      this.socket?.send(data);
    }

    close(): void {
      if (this.readyState >= 2) return;
      this.readyState = 2;
      if (this.socket) this.socket.terminate();
      else this.readyState = 3;
    }
  };
}
