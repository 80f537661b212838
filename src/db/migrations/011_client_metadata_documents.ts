import type { Knex } from 'knex';

/**
 * Clients known by their Client ID Metadata Document (MCP 2026-07-28, draft-ietf-oauth-client-id-metadata-document):
 * the client_id is the document's https URL. It is stored as it is, in the same oauth_clients row and foreign
 * keys as a registered client's `hc_` id, rather than mapped to an internal id: the id a client sends at the
 * authorization, token and revocation endpoints is then the id Herald stores, with no second lookup that
 * every endpoint would have to remember. So the client id columns widen from 64 characters to 1024, the
 * longest client_id URL Herald accepts (src/domain/oauth/client-metadata-documents.ts). SQLite does not
 * enforce varchar lengths, so only Postgres needs the change; widening a varchar keeps its foreign keys.
 * `document_expires_at` is when the cached document must be fetched again; null for registered clients.
 * Numbered 011: 010 and 012 to 016 belong to the work merged beside this one.
 */
const CLIENT_ID_COLUMNS: [table: string, column: string][] = [
  ['oauth_clients', 'id'],
  ['oauth_token_families', 'client_id'],
  ['oauth_authorization_codes', 'client_id'],
];

function isPostgres(db: Knex): boolean {
  return db.client.config.client === 'pg';
}

export async function up(db: Knex): Promise<void> {
  if (isPostgres(db)) {
    for (const [table, column] of CLIENT_ID_COLUMNS)
      await db.raw('ALTER TABLE ?? ALTER COLUMN ?? TYPE varchar(1024)', [table, column]);
  }
  await db.schema.alterTable('oauth_clients', (t) => {
    t.bigInteger('document_expires_at').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  // Metadata document clients cannot fit the narrow columns; they are fetched again after a later upgrade.
  await db('oauth_clients').whereNotNull('document_expires_at').delete();
  await db.schema.alterTable('oauth_clients', (t) => {
    t.dropColumn('document_expires_at');
  });
  if (isPostgres(db)) {
    for (const [table, column] of CLIENT_ID_COLUMNS)
      await db.raw('ALTER TABLE ?? ALTER COLUMN ?? TYPE varchar(64)', [table, column]);
  }
}
