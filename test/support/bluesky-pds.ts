import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PDS, envToCfg, envToSecrets } from '@atproto/pds';
import { Database as PlcDatabase, PlcServer } from '@did-plc/server';

/**
 * A real Bluesky PDS (@atproto/pds 0.4, the server bsky.social runs) with an in-memory PLC directory, both on
 * loopback only and on ports the system chose. app.bsky.* reads go to the AppView given, if any (a fake of
 * the calls Herald makes); without one the PDS does not serve them.
 */
export interface LocalBluesky {
  /** The PDS origin, e.g. http://localhost:53012. */
  pdsUrl: string;
  plcUrl: string;
  /** Makes an account and an app password for it, as a person would in the Bluesky app. */
  createAccount(handle: string): Promise<{ did: string; handle: string; password: string; appPassword: string }>;
  /** Calls the PDS's XRPC API with the account's own session. */
  xrpc(method: 'GET' | 'POST', nsid: string, body: Record<string, unknown>, accessJwt?: string): Promise<any>;
  /**
   * A session of the account with its main password, for reading back what Herald wrote: the one its creation
   * opened, or a new sign-in (the PDS holds every sign-in at least 350 ms against timing attacks).
   */
  session(handle: string, password: string): Promise<{ accessJwt: string; did: string }>;
  close(): Promise<void>;
}

async function loopbackServer(): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

export async function startLocalBluesky(
  options: { appView?: { url: string; did: string } } = {},
): Promise<LocalBluesky> {
  const plc = PlcServer.create({ db: PlcDatabase.mock(), port: 0 });
  const plcListener = await loopbackServer();
  plcListener.server.on('request', plc.app);
  const plcUrl = `http://localhost:${plcListener.port}`;

  const pdsListener = await loopbackServer();
  const pdsUrl = `http://localhost:${pdsListener.port}`;
  const dataDirectory = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-pds-'));
  const env = {
    devMode: true,
    port: pdsListener.port,
    hostname: 'localhost',
    dataDirectory,
    blobstoreDiskLocation: path.join(dataDirectory, 'blobs'),
    didPlcUrl: plcUrl,
    serviceHandleDomains: ['.test'],
    inviteRequired: false,
    rateLimitsEnabled: false,
    jwtSecret: crypto.randomBytes(16).toString('hex'),
    adminPassword: crypto.randomBytes(16).toString('hex'),
    plcRotationKeyK256PrivateKeyHex: crypto.randomBytes(32).toString('hex'),
    disableSsrfProtection: true,
    ...(options.appView ? { bskyAppViewUrl: options.appView.url, bskyAppViewDid: options.appView.did } : {}),
  };
  const pds = await PDS.create(envToCfg(env), envToSecrets(env));
  await pds.ctx.sequencer.start();
  pdsListener.server.on('request', pds.app);

  async function xrpc(
    method: 'GET' | 'POST',
    nsid: string,
    body: Record<string, unknown>,
    accessJwt?: string,
  ): Promise<any> {
    const url =
      method === 'GET'
        ? `${pdsUrl}/xrpc/${nsid}?${new URLSearchParams(body as Record<string, string>)}`
        : `${pdsUrl}/xrpc/${nsid}`;
    const response = await fetch(url, {
      method,
      headers: {
        ...(method === 'POST' ? { 'content-type': 'application/json' } : {}),
        ...(accessJwt ? { authorization: `Bearer ${accessJwt}` } : {}),
      },
      body: method === 'POST' ? JSON.stringify(body) : undefined,
    });
    const json = await response.json().catch(() => undefined);
    if (!response.ok) throw new Error(`${nsid} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  }

  const sessions = new Map<string, { accessJwt: string; did: string }>();

  return {
    pdsUrl,
    plcUrl,
    xrpc,
    async createAccount(handle) {
      const password = crypto.randomBytes(12).toString('hex');
      const created = await xrpc('POST', 'com.atproto.server.createAccount', {
        handle,
        password,
        email: `${handle.split('.')[0]}@example.com`,
      });
      const { password: appPassword } = await xrpc(
        'POST',
        'com.atproto.server.createAppPassword',
        { name: 'Herald' },
        created.accessJwt,
      );
      sessions.set(`${created.handle} ${password}`, { accessJwt: created.accessJwt, did: created.did });
      return { did: created.did, handle: created.handle, password, appPassword };
    },
    async session(handle, password) {
      const opened = sessions.get(`${handle} ${password}`);
      if (opened) return opened;
      const session = await xrpc('POST', 'com.atproto.server.createSession', { identifier: handle, password });
      return { accessJwt: session.accessJwt, did: session.did };
    },
    async close() {
      await pds.destroy();
      for (const server of [pdsListener.server, plcListener.server]) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
      await plc.ctx.db.close?.();
      fs.rmSync(dataDirectory, { recursive: true, force: true });
    },
  };
}
