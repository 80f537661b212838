/**
 * A post write takes `isDraft`, the name posts are read back with, as the same thing as `saveAsDraft`:
 * - either name alone means what `saveAsDraft` means;
 * - both given must agree: a 400 names `isDraft` when they do not, rather than picking one.
 */
import { ValidationError } from '../errors.js';

export function withDraftName<T extends { saveAsDraft?: boolean; isDraft?: boolean }>(input: T): Omit<T, 'isDraft'> {
  const { isDraft, ...rest } = input;
  if (isDraft === undefined) return rest;
  if (input.saveAsDraft !== undefined && input.saveAsDraft !== isDraft) {
    throw new ValidationError(
      `isDraft (${isDraft}) and saveAsDraft (${input.saveAsDraft}) disagree; send one of them.`,
      [{ path: 'isDraft', message: 'It means the same as saveAsDraft: send only one, or the same value in both.' }],
    );
  }
  return { ...rest, saveAsDraft: isDraft };
}
