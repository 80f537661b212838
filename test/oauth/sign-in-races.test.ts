/**
 * Sign-in budgets under concurrency: an attempt is counted before its password is checked, so wrong
 * guesses fired at once cannot all slip past a check made before any of them was counted.
 */
import assert from 'node:assert/strict';
import { MAX_FAILED_SIGN_INS } from '../../src/domain/oauth/sign-in.js';
import { startTestHerald, TEST_DB, type TestHerald } from '../support/herald.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient } from './support.js';

const ADDRESS_BUDGET = 15;

describe(`OAuth sign-in budgets under concurrency (${TEST_DB})`, function () {
  this.timeout(120_000);
  let h: TestHerald;
  let authorize: string;

  before(async () => {
    h = await startTestHerald({ oauthThrottles: { registrationsPerHour: 100, failedSignInsPerWindow: 100_000 } });
    const client = await registerClient(h);
    const { challenge } = pkcePair();
    authorize = authorizeUrl(h, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's',
      resource: h.url + '/mcp',
    });
  });
  after(() => h?.close());

  it(`lets at most ${MAX_FAILED_SIGN_INS} of 30 concurrent wrong passwords for one email be checked`, async () => {
    const victim = await h.seedAccount();
    const user = new FormUser(h.url);
    const page = await user.request(authorize);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => user.signIn(page, victim.email, `wrong ${i}`)),
    );
    const checked = answers.filter((a) => a.status === 401).length;
    const refused = answers.filter((a) => a.status === 429).length;
    assert.equal(checked, MAX_FAILED_SIGN_INS, `statuses: ${answers.map((a) => a.status).join(',')}`);
    assert.equal(refused, 30 - MAX_FAILED_SIGN_INS);
    assert.equal(
      (await user.signIn(page, victim.email, victim.password)).status,
      429,
      'the right password is refused too until the window ends',
    );
  });

  it('holds the per-address budget against 40 concurrent wrong passwords across emails', async () => {
    const limited = await startTestHerald({
      oauthThrottles: { registrationsPerHour: 100, failedSignInsPerWindow: ADDRESS_BUDGET },
    });
    try {
      const client = await registerClient(limited);
      const { challenge } = pkcePair();
      const url = authorizeUrl(limited, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's',
        resource: limited.url + '/mcp',
      });
      const user = new FormUser(limited.url);
      const page = await user.request(url);
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => user.signIn(page, `nobody${i}@example.test`, 'wrong')),
      );
      assert.equal(
        answers.filter((a) => a.status === 401).length,
        ADDRESS_BUDGET,
        `statuses: ${answers.map((a) => a.status).join(',')}`,
      );
      assert.equal(answers.filter((a) => a.status === 429).length, 40 - ADDRESS_BUDGET);
    } finally {
      await limited.close();
    }
  });

  it('does not count a successful sign-in against either budget', async () => {
    const owner = await h.seedAccount();
    const user = new FormUser(h.url);
    const page = await user.request(authorize);
    for (let i = 0; i < MAX_FAILED_SIGN_INS + 5; i++) {
      const answer = await user.signIn(page, owner.email, owner.password);
      assert.notEqual(answer.status, 429, `sign-in ${i + 1} was refused`);
    }
  });
});
