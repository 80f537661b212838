import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NetworkError } from '../../src/domain/networks/connector.js';
import { channelVault, sealCredentials } from '../../src/domain/networks/credential-vault.js';
import { resealStoredSecrets } from '../../src/domain/stored-secrets.js';
import { parseMasterKey, SecretBox } from '../../src/domain/secret-box.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('the credential vault', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let channelId: string;

  beforeEach(async () => {
    // The webhook endpoints this test makes are on loopback, which the SSRF guard refuses unless it is listed.
    t = await startTestHerald({ outboundAllowHosts: ['127.0.0.1'] });
    a = await t.seedAccount({ channels: 1 });
    channelId = a.channelIds[0];
    await t.deps.repos.channels.saveConnection(a.accountId, channelId, {
      handle: '@someone',
      displayName: null,
      avatarUrl: null,
      networkAccountId: 'acct-1',
      sealedCredentials: sealCredentials(t.deps, channelId, { token: 'secret-token-1', refresh: 'refresh-1' }),
      credentialsExpireAt: null,
      textLimit: null,
      connectedAt: 1,
    });
  });
  afterEach(() => t.close());

  it('seals credentials bound to their channel: a sealed value copied to another channel does not open', async () => {
    const row = await t.herald.db('channels').where({ id: channelId }).first();
    assert.ok(!row.credentials.includes('secret-token-1'));
    assert.deepEqual((await channelVault(t.deps, channelId).read()).credentials, {
      token: 'secret-token-1',
      refresh: 'refresh-1',
    });
    await t.herald
      .db('channels')
      .where({ id: channelId })
      .update({ credentials: sealCredentials(t.deps, 'another-channel', { token: 'x' }) });
    await assert.rejects(channelVault(t.deps, channelId).read());
  });

  it(
    'refreshes once for many callers of the same version; ' + 'a final refusal marks the channel needs_reconnect',
    async () => {
      const vault = channelVault(t.deps, channelId);
      const { version } = await vault.read();
      let renewals = 0;
      const renew = async (current: Record<string, unknown>) => {
        renewals++;
        await new Promise((resolve) => setTimeout(resolve, 150));
        return { credentials: { ...current, token: 'secret-token-2' }, expiresAt: null };
      };
      const results = await Promise.all(
        [1, 2, 3, 4].map(() => channelVault(t.deps, channelId).refresh(version, renew)),
      );
      assert.equal(renewals, 1);
      assert.deepEqual(
        results.map((r) => [r.version, r.credentials.token]),
        [1, 2, 3, 4].map(() => [version + 1, 'secret-token-2']),
      );

      await assert.rejects(
        vault.refresh(version + 1, async () => {
          throw new NetworkError('retry_later', 'the network is down');
        }),
        /down/,
      );
      assert.equal(
        (await t.deps.repos.channels.get(a.accountId, channelId))?.status,
        'active',
        'a transient failure changes nothing',
      );
      await assert.rejects(
        vault.refresh(version + 1, async () => {
          throw new NetworkError('reconnect_needed', 'invalid_grant: the refresh token was revoked');
        }),
      );
      const channel = await t.deps.repos.channels.get(a.accountId, channelId);
      assert.equal(channel?.status, 'needs_reconnect');
      assert.equal(channel?.statusReason, 'invalid_grant: the refresh token was revoked');
    },
  );

  it(
    'herald secrets rotate re-seals every credential ' + 'and webhook secret under the new key, all or nothing',
    async () => {
      const hook = await t.api('POST', '/v1/rest/webhooks', {
        token: a.apiKey,
        body: { url: 'http://127.0.0.1:9/hook', eventTypes: ['post.published'] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const newKey = crypto.randomBytes(32);
      const currentKey = parseMasterKey(
        fs.readFileSync(path.join(t.config.dataDir, 'secret.key'), 'utf8'),
        'secret.key',
      );
      const count = await resealStoredSecrets(t.deps.repos, new SecretBox(newKey, [currentKey]));
      assert.equal(count, 2);
      const onlyNew = new SecretBox(newKey);
      const row = await t.herald.db('channels').where({ id: channelId }).first();
      assert.deepEqual(
        JSON.parse(onlyNew.open(`channel-credentials:${channelId}`, row.credentials)).token,
        'secret-token-1',
      );
      const endpoint = await t.herald.db('webhook_endpoints').where({ id: hook.body.data.id }).first();
      assert.equal(onlyNew.open(`webhook_endpoint:${hook.body.data.id}`, endpoint.secret), hook.body.data.secret);
      await assert.rejects(
        resealStoredSecrets(t.deps.repos, new SecretBox(crypto.randomBytes(32))),
        'a key that opens nothing',
      );
      assert.equal(
        (await t.herald.db('channels').where({ id: channelId }).first()).credentials,
        row.credentials,
        'nothing was written',
      );
    },
  );
});
