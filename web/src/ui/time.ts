/** Times as people read them: in their own zone (the browser's) unless a zone is given. */
export const browserTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function formatTime(iso: string | null | undefined, timeZone = browserTimeZone): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(new Date(iso));
}
