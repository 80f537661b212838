import WebSocket from 'ws';
import { decrypt, encrypt, getConversationKey } from 'nostr-tools/nip44';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import type { NostrEvent } from './nostr-relay.js';

/**
 * A NIP-46 remote signer ("bunker") as nsec.app or Amber runs one: it holds the account's key and listens on a relay
 * for kind-24133 requests addressed to its own key, NIP-44 encrypted, answering `connect` (with its one-time
 * secret), `get_public_key`, `sign_event` and `ping` the same way. Clients it has not accepted are refused. A test
 * may have it refuse to sign, as a person who withdrew Herald's permission.
 */
export interface LocalBunker {
  /** The bunker://... address a person copies from their signer. */
  address: string;
  /** The account it signs for. */
  userPubkey: string;
  userSecretKey: Uint8Array;
  /** Every event it signed, in order. */
  signed: NostrEvent[];
  /** The methods it was asked, in order. */
  asked: string[];
  /** Answers every request from now on with this error (null: answers again). */
  refuseWith(error: string | null): void;
  close(): Promise<void>;
}

export async function startBunker(relayUrl: string): Promise<LocalBunker> {
  const userSecretKey = generateSecretKey();
  const bunkerSecretKey = generateSecretKey();
  const bunkerPubkey = getPublicKey(bunkerSecretKey);
  const secret = Math.random().toString(36).slice(2);
  const accepted = new Set<string>();
  const signed: NostrEvent[] = [];
  const asked: string[] = [];
  let refusal: string | null = null;
  const socket = new WebSocket(relayUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));

  const answer = (method: string, params: string[], client: string): { result?: string; error?: string } => {
    if (refusal) return { error: refusal };
    if (method === 'connect') {
      if (params[0] !== bunkerPubkey || params[1] !== secret) return { error: 'invalid secret' };
      accepted.add(client);
      return { result: 'ack' };
    }
    if (!accepted.has(client)) return { error: 'unauthorized: connect first' };
    if (method === 'ping') return { result: 'pong' };
    if (method === 'get_public_key') return { result: getPublicKey(userSecretKey) };
    if (method === 'sign_event') {
      const event = finalizeEvent(JSON.parse(params[0]), userSecretKey) as NostrEvent;
      signed.push(event);
      return { result: JSON.stringify(event) };
    }
    return { error: `unsupported method ${method}` };
  };

  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    if (message[0] !== 'EVENT' || message[1] !== 'bunker') return;
    const request: NostrEvent = message[2];
    // The relay passes on every kind-24133 event, the bunker's own answers too: only requests to it are read.
    if (!request.tags.some((tag) => tag[0] === 'p' && tag[1] === bunkerPubkey)) return;
    const key = getConversationKey(bunkerSecretKey, request.pubkey);
    const { id, method, params } = JSON.parse(decrypt(request.content, key));
    asked.push(method);
    const reply = finalizeEvent(
      {
        kind: 24133,
        created_at: Math.floor(Date.now() / 1000),
        tags: [['p', request.pubkey]],
        content: encrypt(JSON.stringify({ id, ...answer(method, params, request.pubkey) }), key),
      },
      bunkerSecretKey,
    );
    socket.send(JSON.stringify(['EVENT', reply]));
  });
  const since = Math.floor(Date.now() / 1000) - 5;
  socket.send(JSON.stringify(['REQ', 'bunker', { kinds: [24133], '#p': [bunkerPubkey], since }]));

  return {
    address: `bunker://${bunkerPubkey}?relay=${encodeURIComponent(relayUrl)}&secret=${secret}`,
    userPubkey: getPublicKey(userSecretKey),
    userSecretKey,
    signed,
    asked,
    refuseWith: (error) => {
      refusal = error;
    },
    close: async () => {
      socket.terminate();
    },
  };
}
