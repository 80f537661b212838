/**
 * Test databases dropped while the tests go on: a Postgres DROP DATABASE waits for a checkpoint, half a second or
 * more when the machine is busy, and no test needs to wait for it. The root hook in global-setup.ts waits for them
 * at the end (of the run, or of each file under --parallel), so none is left behind.
 */
const dropping = new Set<Promise<void>>();
const failures: unknown[] = [];

export function dropLater(drop: () => Promise<void>): void {
  const dropped: Promise<void> = drop()
    .catch((error: unknown) => void failures.push(error))
    .finally(() => dropping.delete(dropped));
  dropping.add(dropped);
}

/** Waits for every drop started; one that failed fails the hook that waits. */
export async function settleDrops(): Promise<void> {
  await Promise.all([...dropping]);
  if (failures.length) throw new AggregateError(failures.splice(0), 'test databases could not be dropped');
}
