/**
 * location_search's ranking through the MCP server: exact names, then names starting with the query,
 * then names holding it after another word, larger places first within each; accents and case ignored;
 * a country narrows it. The search runs on an index (src/domain/locations.ts), so these pin the order
 * that index must keep.
 */
import assert from 'node:assert/strict';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { callTool } from './support.js';

describe(`MCP location_search ranking (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let account: SeededAccount;

  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
  });
  after(() => h?.close());

  async function places(
    args: Record<string, unknown>,
  ): Promise<{ name: string; country: string; population: number }[]> {
    const answer = await callTool(h, account.apiKey, 'location_search', args);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.result.structuredContent.data;
  }

  it('puts exact names first, then name prefixes, then other matches, larger places first within each', async () => {
    const found = await places({ query: 'new york', limit: 5 });
    assert.deepEqual(
      found.map((p) => [p.name, p.population]),
      [
        ['New York City', 8175133],
        ['New York Mills', 3308],
        ['New York Mills', 1225],
        ['East New York', 173198],
        ['West New York', 53366],
      ],
    );
    const paris = await places({ query: 'paris', limit: 3 });
    assert.deepEqual(
      paris.map((p) => [p.name, p.country]),
      [
        ['Paris', 'FR'],
        ['Paris', 'US'],
        ['Paris', 'CA'],
      ],
    );
  });

  it('ignores accents and case, and narrows to a country', async () => {
    assert.deepEqual(await places({ query: 'NEW YÖRK', limit: 5 }), await places({ query: 'new york', limit: 5 }));
    const inCanada = await places({ query: 'paris', country: 'ca', limit: 50 });
    assert.ok(inCanada.length > 0 && inCanada.every((p) => p.country === 'CA'), JSON.stringify(inCanada));
    const tiers = inCanada.map((p) =>
      p.name.toLowerCase() === 'paris' ? 0 : p.name.toLowerCase().startsWith('paris') ? 1 : 2,
    );
    assert.deepEqual(tiers, [...tiers].sort());
  });

  it(
    'keeps the order for short, busy prefixes and sparse phrases: ' +
      'the tier never goes back, and within a tier size never grows',
    async () => {
      const fold = (text: string) =>
        text
          .normalize('NFKD')
          .replace(/[\u0300-\u036f]/g, '')
          .toLowerCase();
      // The phrases are missing from most places of their words' ranges, so the search ranks those in one pass.
      const expected = { sa: 50, ma: 50, san: 50, st: 50, francisco: 50, 'a de': 50, 'sa sa': 3 };
      for (const [query, count] of Object.entries(expected)) {
        const found = await places({ query, limit: 50 });
        assert.equal(found.length, count, query);
        const ranked = found.map((p) => ({
          tier: fold(p.name) === query ? 0 : fold(p.name).startsWith(query) ? 1 : 2,
          population: p.population,
        }));
        for (let i = 1; i < ranked.length; i++) {
          const [before, after] = [ranked[i - 1], ranked[i]];
          assert.ok(
            before.tier < after.tier || (before.tier === after.tier && before.population >= after.population),
            `${query}: ${JSON.stringify(found.slice(i - 1, i + 1))}`,
          );
        }
      }
    },
  );
});
