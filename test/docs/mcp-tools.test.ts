import assert from 'node:assert/strict';
import fs from 'node:fs';
import { MCP_REFERENCE_FILE, mcpToolsReference } from '../../scripts/generate/mcp-reference.js';
import { describeOnce } from '../support/databases.js';

// Files of the checkout: no database involved.
describeOnce('docs/mcp-tools.md, the MCP tools reference', () => {
  it('is what make generate writes from jsonrpc-schemas/, one section per tool', () => {
    const written = fs.readFileSync(MCP_REFERENCE_FILE, 'utf8');
    assert.equal(written, mcpToolsReference(process.cwd()), 'run make generate and commit docs/mcp-tools.md');
    const tools = fs
      .readdirSync('jsonrpc-schemas')
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.replace(/\.json$/, ''));
    assert.deepEqual(
      [...written.matchAll(/^## (\S+)$/gm)].map((m) => m[1]),
      tools.sort(),
    );
    assert.match(written, /\n## create_text_post\n\n\*\*Create a text post\.\*\* Creates one post per channel/);
    assert.match(
      written,
      /\| `channelIds` \| array of string \(1 to 64 characters\) \(1 to 50 items\) \| yes \| Channels to post to/,
    );
  });
});
