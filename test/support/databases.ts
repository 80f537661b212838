/**
 * Which of the suite's runs registers a test: `make test` runs every file on SQLite and again on Postgres.
 * - A test of data behaviour (anything a repository, a query, a transaction or a budget decides) runs on both: `it`.
 * - A test whose subject is the same on any database is registered on the SQLite run alone, with `describeOnce` or
 *   `itOnce` and a one-line comment saying why: a page's layout, axe and screenshots, the web app in the browser
 *   (it speaks only REST, whose data behaviour test/rest and its neighbours run on both), help text, the docs.
 *   The app's journey test stays on both (issue 31). A browser test that alone checks something the database keeps
 *   gets a twin over HTTP run on both, as test/rest/app-budgets.test.ts is for the app's budgets.
 * - A test of one database's own case (a database file not there yet, Postgres instances racing) uses `itOn`.
 * A test left out of a run is not registered there at all, never skipped, so nothing reads as pending.
 */

export type TestDatabaseKind = 'sqlite' | 'postgres';

type TestBody = (this: Mocha.Context) => unknown;

export const TEST_DB: TestDatabaseKind = process.env.HERALD_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/** The run that takes the tests registered once. */
const ONCE_ON: TestDatabaseKind = 'sqlite';

/** A suite whose subject does not depend on the database: registered on the SQLite run only. */
export function describeOnce(title: string, suite: (this: Mocha.Suite) => void): Mocha.Suite | undefined {
  return TEST_DB === ONCE_ON ? describe(title, suite) : undefined;
}

/** A test whose subject does not depend on the database: registered on the SQLite run only. */
export function itOnce(title: string, test: TestBody): Mocha.Test | undefined {
  return TEST_DB === ONCE_ON ? it(title, test) : undefined;
}

/** A test of one database's own case: registered on that database's run only. */
export function itOn(database: TestDatabaseKind, title: string, test: TestBody): Mocha.Test | undefined {
  return TEST_DB === database ? it(title, test) : undefined;
}
