/**
 * Signing a Herald user in on the authorization page:
 * - the password is checked with scrypt (`verifyPassword`);
 * - an unknown email costs the same scrypt work as a wrong password, so the answer time does not tell
 *   which emails have accounts;
 * - users without a password (created without one) cannot sign in here.
 */
import type { UserRecord } from '../../db/repositories/accounts.js';
import type { DomainDeps } from '../deps.js';
import { hashPassword, verifyPassword } from '../passwords.js';

let decoyHash: Promise<string> | undefined;

export async function signIn(deps: DomainDeps, email: string, password: string): Promise<UserRecord | undefined> {
  const user = email.trim() === '' ? undefined : await deps.repos.accounts.findUserByEmail(email.trim().toLowerCase());
  if (!user || user.passwordHash === null) {
    decoyHash ??= hashPassword('decoy password for unknown emails');
    await verifyPassword(password, await decoyHash);
    return undefined;
  }
  return (await verifyPassword(password, user.passwordHash)) ? user : undefined;
}
