/**
 * The app's only way to Herald: the SDK (sdk/) over the REST API, signed in by the session cookie, with the
 * page's CSRF token in every call. `call` turns an answer into its data or an ApiError carrying the server's
 * words and the fields they concern; a session that ended sends the person to sign in.
 */
import { createHeraldClient, type HeraldClient, type HeraldError } from '../../sdk/src/index.js';

export const csrfToken = document.querySelector<HTMLMetaElement>('meta[name="herald-csrf-token"]')?.content ?? '';

// A person waits for a click's answer: a short Retry-After is waited out, a longer one shown in their words.
export const api: HeraldClient = createHeraldClient({ baseUrl: location.origin, csrfToken, maxRetryDelaySeconds: 2 });

export type FieldProblem = NonNullable<HeraldError['details']>[number];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
  ) {
    super(message);
  }

  /** The server's problems with one field (`text`, `channelIds`, `posts[0].dateTime`...), wherever it named it. */
  problemsAt(field: string): string[] {
    return this.details
      .filter((d) => {
        const path = d.path.replace(/^body\./, '');
        return path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
      })
      .map((d) => d.message);
  }
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export async function call<T>(request: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await request;
  } catch {
    throw new ApiError(0, 'offline', 'Herald could not be reached. Check your connection, then try again.');
  }
  const { data, error, response } = answer;
  if (response.status === 401) {
    location.assign(`/app/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`);
    throw new ApiError(401, 'unauthorized', 'Your session has ended: sign in again.');
  }
  if (error !== undefined || !response.ok) {
    const body = (error ?? {}) as Partial<HeraldError>;
    throw new ApiError(
      response.status,
      body.code ?? 'error',
      body.message ?? `Herald answered ${response.status}.`,
      body.details ?? [],
    );
  }
  return data as T;
}

/** Whatever an action threw, as an ApiError the page can show (a bug's message included, never a crash in render). */
export function toApiError(caught: unknown): ApiError {
  return caught instanceof ApiError ? caught : new ApiError(0, 'error', String(caught));
}
