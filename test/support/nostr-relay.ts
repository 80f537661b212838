import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventRepository, type Event, type Filter as RelayFilter } from '@nostr-relay/common';
import { NostrRelay } from '@nostr-relay/core';
import { Validator } from '@nostr-relay/validator';
import { WebSocketServer, type WebSocket } from 'ws';

/**
 * A real Nostr relay on loopback: @nostr-relay/core (which checks every event's id and signature, answers OK,
 * REQ and EOSE as NIP-01 says) with its message validator, over `ws`, keeping events in memory. A test may make
 * it refuse events (as a relay that blocks the author does) or store the next event and never answer (a lost OK).
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

export interface LocalRelay {
  url: string;
  /** The events it stored, oldest first. */
  events: NostrEvent[];
  /** Every EVENT message it received, stored or not. */
  received: NostrEvent[];
  /** Refuses every event from now on with this NIP-01 message (`blocked: ...`), or stops refusing (null). */
  refuseWith(message: string | null): void;
  /** Stores the next event it receives without answering OK, as if the answer were lost on the way. */
  silenceNext(): void;
  close(): Promise<void>;
}

type Filter = Record<string, unknown> & {
  ids?: string[];
  authors?: string[];
  kinds?: number[];
  since?: number;
  until?: number;
  limit?: number;
};

function matches(event: NostrEvent, filter: Filter): boolean {
  if (filter.ids && !filter.ids.includes(event.id)) return false;
  if (filter.authors && !filter.authors.includes(event.pubkey)) return false;
  if (filter.kinds && !filter.kinds.includes(event.kind)) return false;
  if (filter.since !== undefined && event.created_at < filter.since) return false;
  if (filter.until !== undefined && event.created_at > filter.until) return false;
  for (const [key, values] of Object.entries(filter)) {
    if (!key.startsWith('#') || !Array.isArray(values)) continue;
    if (!event.tags.some((tag) => tag[0] === key.slice(1) && values.includes(tag[1]))) return false;
  }
  return true;
}

export async function startNostrRelay(): Promise<LocalRelay> {
  const events: NostrEvent[] = [];
  const received: NostrEvent[] = [];
  let refusal: string | null = null;
  let silence = false;
  class MemoryRepository extends EventRepository {
    isSearchSupported(): boolean {
      return false;
    }

    upsert(event: Event) {
      if (events.some((e) => e.id === event.id)) return { isDuplicate: true };
      events.push(event as NostrEvent);
      return { isDuplicate: false };
    }

    find(filter: RelayFilter): Event[] {
      const found = events.filter((e) => matches(e, filter as Filter)).sort((a, b) => b.created_at - a.created_at);
      return found.slice(0, filter.limit ?? 500) as Event[];
    }

    async destroy(): Promise<void> {}
  }
  // No result caches: a test reads back at once what it just wrote.
  const relay = new NostrRelay(new MemoryRepository(), {
    filterResultCacheTtl: 0,
    eventHandlingResultCacheTtl: 0,
    logLevel: 3,
  });
  relay.register({ beforeHandleEvent: () => (refusal ? { canHandle: false, message: refusal } : { canHandle: true }) });
  const validator = new Validator();
  const server = http.createServer();
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket: WebSocket) => {
    relay.handleConnection(socket);
    socket.on('close', () => relay.handleDisconnect(socket));
    socket.on('message', async (data) => {
      try {
        const message = await validator.validateIncomingMessage(data);
        if (message[0] === 'EVENT') received.push(message[1] as unknown as NostrEvent);
        if (message[0] === 'EVENT' && silence) {
          silence = false;
          await relay.handleEvent(message[1]);
          return;
        }
        await relay.handleMessage(socket, message);
      } catch (error) {
        socket.send(JSON.stringify(['NOTICE', `invalid: ${(error as Error).message}`]));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    events,
    received,
    refuseWith: (message) => {
      refusal = message;
    },
    silenceNext: () => {
      silence = true;
    },
    close: async () => {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await relay.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
