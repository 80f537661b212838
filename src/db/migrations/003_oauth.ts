import type { Knex } from 'knex';

/**
 * The OAuth 2.1 authorization server for MCP clients: dynamically registered clients, single-use
 * authorization codes, and token families (one per authorization: every access and refresh token a
 * code or its refresh chain produced). Codes, tokens and client secrets are stored only as SHA-256 hashes.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('oauth_clients', (t) => {
    t.string('id', 64).primary();
    t.string('secret_hash', 64);
    t.string('token_endpoint_auth_method', 40).notNullable();
    t.string('client_name', 200);
    t.text('redirect_uris').notNullable();
    t.string('grant_types', 200).notNullable();
    t.string('scope', 200);
    t.text('metadata');
    t.bigInteger('created_at').notNullable();
  });

  await db.schema.createTable('oauth_token_families', (t) => {
    t.string('id', 40).primary();
    t.string('client_id', 64).notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('scope', 200).notNullable();
    t.text('resource').notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('revoked_at');
    t.index(['account_id']);
  });

  await db.schema.createTable('oauth_authorization_codes', (t) => {
    t.string('code_hash', 64).primary();
    // The family its tokens will belong to, fixed when the code is issued so that a replayed code can revoke them.
    t.string('family_id', 40).notNullable();
    t.string('client_id', 64).notNullable().references('oauth_clients.id').onDelete('CASCADE');
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.text('redirect_uri').notNullable();
    t.string('scope', 200).notNullable();
    t.text('resource').notNullable();
    t.string('code_challenge', 128).notNullable();
    t.string('code_challenge_method', 10).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('used_at');
    t.index(['expires_at']);
  });

  await db.schema.createTable('oauth_tokens', (t) => {
    t.string('id', 40).primary();
    t.string('family_id', 40).notNullable().references('oauth_token_families.id').onDelete('CASCADE');
    t.string('kind', 10).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    t.string('scope', 200).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    // Refresh tokens: set when exchanged; presenting one again is replay and revokes the family.
    t.bigInteger('used_at');
    t.bigInteger('revoked_at');
    t.index(['family_id']);
    t.index(['expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['oauth_tokens', 'oauth_authorization_codes', 'oauth_token_families', 'oauth_clients']) {
    await db.schema.dropTableIfExists(table);
  }
}
