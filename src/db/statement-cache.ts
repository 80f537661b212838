/**
 * Knex asks better-sqlite3 to prepare every statement again on every query, and preparing was the largest single
 * cost of a REST read (BENCHMARKS.md). The connection keeps its prepared statements by SQL text instead, the
 * least recently used dropped past `limit` (queries with IN lists of varying length make new texts). Reusing a
 * statement is safe here: better-sqlite3 runs each one synchronously to completion, and SQLite re-prepares a
 * statement itself when the schema under it changes.
 */
interface Preparing<S> {
  prepare(sql: string): S;
}

export function cachePreparedStatements<S>(connection: Preparing<S>, limit = 500): void {
  const prepare = connection.prepare.bind(connection);
  const statements = new Map<string, S>();
  connection.prepare = (sql: string): S => {
    let statement = statements.get(sql);
    if (statement) {
      statements.delete(sql);
    } else {
      statement = prepare(sql);
      if (statements.size >= limit) statements.delete(statements.keys().next().value!);
    }
    statements.set(sql, statement);
    return statement;
  };
}
