import type WebSocket from 'ws';
import { NetworkError } from '../../domain/networks/connector.js';
import type { NetworkHttp } from './network-http.js';

/**
 * Talking to Nostr relays over NIP-01 (["EVENT"], ["REQ"] until EOSE, ["OK"]), one WebSocket per relay per call,
 * opened through network-http.ts (the SSRF guard, pinned addresses).
 *
 * Rules kept here:
 * - a relay's answer to an event is read by its machine-readable prefix (NIP-01): `duplicate:` is an acceptance;
 *   `invalid:`, `blocked:`, `restricted:`, `pow:` and `auth-required:` (Herald does no NIP-42 AUTH) are permanent for
 *   that relay; `rate-limited:`, `error:` and a relay that cannot be reached are worth another try; an event sent with
 *   no answer before the deadline may have been stored (unknown);
 * - a query ends at EOSE or at the deadline, with what arrived;
 * - nothing read from a relay is trusted as the account's own without its signature checked by the caller.
 */
export interface NostrEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

export type RelayVerdict = 'accepted' | 'permanent' | 'retry' | 'unknown';

export interface RelayOutcome {
  relay: string;
  verdict: RelayVerdict;
  message: string;
}

export type NostrFilter = Record<string, unknown>;

const PERMANENT_PREFIXES = ['invalid', 'blocked', 'restricted', 'pow', 'auth-required'];

/** Sends one event to every relay at once; each answers for itself. */
export function sendToRelays(
  http: NetworkHttp,
  relays: readonly string[],
  event: NostrEvent,
  timeoutMs: number,
): Promise<RelayOutcome[]> {
  return Promise.all(relays.map((relay) => sendToRelay(http, relay, event, timeoutMs)));
}

async function sendToRelay(
  http: NetworkHttp,
  relay: string,
  event: NostrEvent,
  timeoutMs: number,
): Promise<RelayOutcome> {
  let socket: WebSocket;
  try {
    socket = await http.socket(relay);
  } catch (error) {
    const permanent = error instanceof NetworkError && error.kind === 'permanent';
    return {
      relay,
      verdict: permanent ? 'permanent' : 'retry',
      message: error instanceof Error ? error.message : 'could not be reached',
    };
  }
  try {
    return await new Promise<RelayOutcome>((resolve) => {
      const timer = setTimeout(
        () => resolve({ relay, verdict: 'unknown', message: 'sent the event, then did not answer in time' }),
        timeoutMs,
      );
      const settle = (outcome: RelayOutcome) => {
        clearTimeout(timer);
        resolve(outcome);
      };
      socket.on('message', (data) => {
        const message = parse(data);
        if (message?.[0] !== 'OK' || message[1] !== event.id) return;
        const words = typeof message[3] === 'string' ? message[3] : '';
        if (message[2] === true) settle({ relay, verdict: 'accepted', message: words || 'accepted' });
        else settle({ relay, verdict: verdictOf(words), message: words || 'refused without a reason' });
      });
      socket.on('error', () =>
        settle({ relay, verdict: 'unknown', message: 'the connection broke after the event was sent' }),
      );
      socket.on('close', () =>
        settle({ relay, verdict: 'unknown', message: 'closed the connection after the event was sent' }),
      );
      socket.send(JSON.stringify(['EVENT', event]));
    });
  } finally {
    socket.removeAllListeners();
    socket.on('error', () => undefined);
    socket.terminate();
  }
}

function verdictOf(words: string): RelayVerdict {
  const prefix = /^([a-z-]+):/.exec(words)?.[1] ?? '';
  if (prefix === 'duplicate') return 'accepted';
  return PERMANENT_PREFIXES.includes(prefix) ? 'permanent' : 'retry';
}

/**
 * The events each relay holds for the filter, together and without repeats; a relay that cannot be reached is left out.
 */
export async function queryRelays(
  http: NetworkHttp,
  relays: readonly string[],
  filter: NostrFilter,
  timeoutMs: number,
): Promise<{ events: NostrEvent[]; reached: number; problems: string[] }> {
  const answers = await Promise.all(
    relays.map(async (relay) => {
      try {
        return { events: await queryRelay(http, relay, filter, timeoutMs) };
      } catch (error) {
        return { problem: `${relay}: ${error instanceof Error ? error.message : 'could not be reached'}` };
      }
    }),
  );
  const byId = new Map<string, NostrEvent>();
  for (const answer of answers) for (const event of answer.events ?? []) byId.set(event.id, event);
  return {
    events: [...byId.values()].sort((a, b) => b.created_at - a.created_at),
    reached: answers.filter((a) => a.events).length,
    problems: answers.flatMap((a) => (a.problem ? [a.problem] : [])),
  };
}

async function queryRelay(
  http: NetworkHttp,
  relay: string,
  filter: NostrFilter,
  timeoutMs: number,
): Promise<NostrEvent[]> {
  const socket = await http.socket(relay);
  const subscription = `herald-${Math.random().toString(36).slice(2, 10)}`;
  try {
    return await new Promise<NostrEvent[]>((resolve, reject) => {
      const events: NostrEvent[] = [];
      const timer = setTimeout(() => resolve(events), timeoutMs);
      socket.on('message', (data) => {
        const message = parse(data);
        if (message?.[1] !== subscription) return;
        if (message[0] === 'EVENT' && isEvent(message[2])) events.push(message[2]);
        else if (message[0] === 'EOSE') {
          clearTimeout(timer);
          resolve(events);
        } else if (message[0] === 'CLOSED') {
          clearTimeout(timer);
          reject(new NetworkError('retry_later', `refused the query: ${String(message[2] ?? '')}`));
        }
      });
      socket.on('error', () => reject(new NetworkError('retry_later', 'the connection broke')));
      socket.send(JSON.stringify(['REQ', subscription, filter]));
    });
  } finally {
    socket.removeAllListeners();
    socket.on('error', () => undefined);
    socket.terminate();
  }
}

function parse(data: WebSocket.RawData): unknown[] | undefined {
  try {
    const value = JSON.parse(data.toString());
    return Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isEvent(value: unknown): value is NostrEvent {
  const event = value as NostrEvent;
  return (
    typeof event?.id === 'string' &&
    typeof event.pubkey === 'string' &&
    typeof event.content === 'string' &&
    typeof event.created_at === 'number' &&
    Array.isArray(event.tags)
  );
}
