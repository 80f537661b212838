import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import {
  NetworkError,
  type AttemptLookup,
  type CommentLookup,
  type CommentRequest,
  type ConnectedAccount,
  type ConnectionCheck,
  type ConnectionMethod,
  type ConnectorChannel,
  type NetworkConnector,
  type NetworkPost,
  type PostKey,
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import {
  downloadMedia,
  retryAtFrom,
  type NetworkAnswer,
  type NetworkHttp,
  type NetworkHttpOptions,
} from './network-http.js';

/**
 * A self-hosted WordPress site through its REST API, signed in with an Application Password ([WP] REST handbook,
 * NETWORKS.md "Seven more networks"). WordPress.com's own API is another network and not this one.
 *
 * Rules kept here:
 * - the API root is the one the site announces (`Link: <...>; rel="https://api.w.org/"`, which is
 *   `/?rest_route=/` on a site with plain permalinks), else `/wp-json/`; the account is checked with
 *   /wp/v2/users/me, and the site's address goes through the SSRF guard like every URL a person names; the
 *   password is sent over https only (http only to a host the operator allowed, a site on a private network);
 * - the title is the `title` option, else the first line of the text (the rest is the body); the text is sent as
 *   HTML paragraphs with its characters escaped, never as markup; one image becomes the featured image and one
 *   video a video block (core/video) after the text, each uploaded to /wp/v2/media (WordPress takes only an image
 *   as featured media); `category` names a category the site already has (by slug or name); `tags` are names,
 *   each the site's tag of that name or slug, made when the site has none (a tag made meanwhile by another
 *   request is the one WordPress names in its `term_exists` answer);
 * - `publishAt` in the future sends the post as `future` with its date: WordPress publishes it then itself;
 * - never twice: every post carries a slug made from its Herald key, and each attempt first asks the site for a
 *   post with that slug (any status): one found is the post, whatever happened to the answer that made it;
 * - a first comment is a WordPress comment by the account, found again by its text on that post;
 * - failures: 401, or the site answering as to a visitor (a password it no longer takes is ignored, not refused),
 *   means the Application Password no longer works (reconnect); a role that may not publish (403) and other
 *   400s are permanent with WordPress's message; 429, 5xx and an HTML page instead of JSON retry later;
 * - live sync reads the account's published posts with their comment counts; disconnecting revokes the
 *   Application Password Herald used (introspect, then delete).
 */
const API_LINK = 'https://api.w.org/';
const PER_PAGE_MAX = 100;

interface WordPressCredentials {
  site: string;
  apiRoot: string;
  username: string;
  applicationPassword: string;
  userId: number;
}

export class WordPressNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.wordpress;
  readonly connection: ConnectionMethod = {
    kind: 'credentials',
    fields: [
      {
        name: 'site',
        required: true,
        secret: false,
        description: 'The address of the WordPress site (https://example.com)',
      },
      {
        name: 'username',
        required: true,
        secret: false,
        description: 'The WordPress user Herald publishes as (an Author or above)',
      },
      {
        name: 'applicationPassword',
        required: true,
        secret: true,
        description: 'An Application Password made for Herald under Users, Profile, Application Passwords',
      },
    ],
  };

  constructor(
    private readonly http: NetworkHttp,
    private readonly media: NetworkHttpOptions,
    private readonly now: () => number,
  ) {}

  configured(): boolean {
    return true;
  }

  async signIn(fields: Record<string, string>): Promise<ConnectedAccount> {
    const site = siteAddress(fields.site);
    // The Application Password goes in every request's header: never in the clear, but to a host the operator
    // allowed on a private network (OUTBOUND_ALLOW_HOSTS), as WordPress itself allows local sites over http.
    const host = new URL(site).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (site.startsWith('http:') && !this.media.allowHosts.includes(host)) {
      throw new NetworkError(
        'permanent',
        `${site} is not https: Herald sends the Application Password only over https; give the site's https address`,
      );
    }
    const apiRoot = await this.discoverApiRoot(site);
    const draft: WordPressCredentials = {
      site,
      apiRoot,
      username: fields.username.trim(),
      applicationPassword: fields.applicationPassword.trim(),
      userId: 0,
    };
    const me = await this.http.request(route(apiRoot, '/wp/v2/users/me', { context: 'edit' }), {
      headers: basic(draft),
    });
    if (me.status === 401 || me.status === 403) {
      throw new NetworkError(
        'permanent',
        `${new URL(site).host} refused the username or Application Password (${wordsOf(me)})`,
      );
    }
    if (me.status !== 200 || typeof me.json?.id !== 'number') throw classify(me, this.now());
    const avatars = me.json.avatar_urls ?? {};
    return {
      networkAccountId: `${site}#${me.json.id}`,
      handle: `${me.json.slug ?? draft.username}@${new URL(site).host}`,
      displayName: typeof me.json.name === 'string' ? me.json.name : null,
      avatarUrl: avatars['96'] ?? avatars['48'] ?? null,
      credentials: { ...draft, userId: me.json.id },
      expiresAt: null,
      textLimit: null,
    };
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    const credentials = await this.credentials(channel);
    return { site: credentials.site, username: credentials.username };
  }

  async revoke(channel: ConnectorChannel): Promise<void> {
    const credentials = await this.credentials(channel);
    const own = await this.http.request(
      route(credentials.apiRoot, '/wp/v2/users/me/application-passwords/introspect'),
      { headers: basic(credentials) },
    );
    if (own.status === 401) return;
    if (own.status !== 200 || typeof own.json?.uuid !== 'string') throw classify(own, this.now());
    const deleted = await this.http.request(
      route(credentials.apiRoot, `/wp/v2/users/me/application-passwords/${encodeURIComponent(own.json.uuid)}`),
      {
        method: 'DELETE',
        headers: basic(credentials),
      },
    );
    if (deleted.status !== 200) throw classify(deleted, this.now());
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const credentials = await this.credentials(request.channel);
    const slug = slugFor(request.postKey);
    const earlier = await this.postBySlug(credentials, slug);
    if (earlier) return earlier;
    const options = request.channelOptions ?? {};
    const { title, body } = titleAndBody(request.text, typeof options.title === 'string' ? options.title : undefined);
    const post: Record<string, unknown> = { title, content: paragraphs(body), slug, status: 'publish' };
    const publishAt = typeof options.publishAt === 'string' ? Date.parse(options.publishAt) : NaN;
    if (!Number.isNaN(publishAt) && publishAt > this.now()) {
      post.status = 'future';
      post.date_gmt = new Date(publishAt).toISOString().slice(0, 19);
    }
    if (typeof options.category === 'string' && options.category.trim())
      post.categories = [await this.categoryId(credentials, options.category.trim())];
    const tags = [...new Set(stringList(options.tags).map((tag) => tag.trim()))].filter(Boolean);
    if (tags.length > 0) post.tags = await Promise.all(tags.map((tag) => this.tagId(credentials, tag)));
    if (request.imageUrls.length > 0)
      post.featured_media = (
        await this.upload(request.channel, credentials, request.imageUrls[0], stringList(options.altText)[0])
      ).id;
    if (request.videoUrls.length > 0) {
      const video = await this.upload(request.channel, credentials, request.videoUrls[0], undefined);
      post.content = `${post.content}\n${videoBlock(video)}`;
    }
    const answer = await this.http.request(route(credentials.apiRoot, '/wp/v2/posts'), {
      method: 'POST',
      headers: basic(credentials),
      json: post,
    });
    if (answer.status !== 201 || typeof answer.json?.id !== 'number') throw classify(answer, this.now());
    return this.publishedFrom(answer.json);
  }

  /** The slug is the post's own: a post found under it is the one an earlier attempt made. */
  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    return this.postBySlug(await this.credentials(lookup.channel), slugFor(lookup.postKey));
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const credentials = await this.credentials(request.channel);
    const answer = await this.http.request(route(credentials.apiRoot, '/wp/v2/comments'), {
      method: 'POST',
      headers: basic(credentials),
      json: { post: Number(request.networkPostId), content: request.text },
    });
    if (answer.status !== 201 || typeof answer.json?.id !== 'number') throw classify(answer, this.now());
    return { networkCommentId: String(answer.json.id) };
  }

  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const credentials = await this.credentials(lookup.channel);
    const answer = await this.http.request(
      route(credentials.apiRoot, '/wp/v2/comments', {
        post: lookup.networkPostId,
        author: String(credentials.userId),
        context: 'edit',
        per_page: String(PER_PAGE_MAX),
        status: 'all',
      }),
      { headers: basic(credentials) },
    );
    if (answer.status !== 200 || !Array.isArray(answer.json)) throw classify(answer, this.now());
    const found = answer.json.find((comment: any) => String(comment.content?.raw ?? '').trim() === lookup.text.trim());
    return found ? { networkCommentId: String(found.id) } : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const credentials = await this.credentials(channel);
    const pageNumber = Number(page.cursor ?? '1') || 1;
    const perPage = Math.min(PER_PAGE_MAX, Math.max(1, page.limit));
    const answer = await this.http.request(
      route(credentials.apiRoot, '/wp/v2/posts', {
        author: String(credentials.userId),
        status: 'publish',
        context: 'edit',
        per_page: String(perPage),
        page: String(pageNumber),
        orderby: 'date',
        order: 'desc',
      }),
      { headers: basic(credentials) },
    );
    // WordPress answers a page past the last with 400 rest_post_invalid_page_number.
    if (answer.status === 400 && answer.json?.code === 'rest_post_invalid_page_number')
      return { posts: [], nextCursor: null };
    if (answer.status !== 200 || !Array.isArray(answer.json)) throw classify(answer, this.now());
    const posts: NetworkPost[] = [];
    for (const post of answer.json) {
      posts.push({
        ...this.publishedFrom(post),
        attemptKey: null,
        text: String(post.content?.raw ?? ''),
        imageUrls: [],
        metrics: { comments: await this.commentCount(credentials, post.id) },
      });
    }
    const totalPages = Number(answer.header('x-wp-totalpages') ?? '1');
    return { posts, nextCursor: pageNumber < totalPages ? String(pageNumber + 1) : null };
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const credentials = await this.credentials(channel);
    const me = await this.http.request(route(credentials.apiRoot, '/wp/v2/users/me', { context: 'edit' }), {
      headers: basic(credentials),
    });
    if (me.status !== 200) throw classify(me, this.now());
    const capabilities = me.json?.capabilities ?? {};
    const granted = Object.keys(capabilities).filter((name) => capabilities[name] === true);
    const problems: string[] = [];
    if (me.json?.id !== credentials.userId)
      problems.push("The Application Password now belongs to another WordPress user than the channel's; reconnect it.");
    if (!capabilities.publish_posts)
      problems.push(
        `${credentials.username} may not publish posts on ${credentials.site}: give the user the Author role or above.`,
      );
    if (!capabilities.upload_files)
      problems.push(
        `${credentials.username} may not upload files, so posts with an image will fail: give the user the Author ` +
          'role or above.',
      );
    return {
      account: `${me.json?.slug ?? credentials.username}@${new URL(credentials.site).host}`,
      grantedScopes: granted,
      problems,
    };
  }

  private async postBySlug(credentials: WordPressCredentials, slug: string): Promise<PublishedPost | undefined> {
    const answer = await this.http.request(
      route(credentials.apiRoot, '/wp/v2/posts', { slug, status: 'any', context: 'edit' }),
      { headers: basic(credentials) },
    );
    // Only a user who may edit posts lists them in every status: a site that no longer takes the password answers
    // as to a visitor (reconnect), and a user without the role is refused for good (a person must change it).
    if (answer.status === 400 && answer.json?.data?.params?.status) {
      const me = await this.http.request(route(credentials.apiRoot, '/wp/v2/users/me'), {
        headers: basic(credentials),
      });
      if (me.status === 200) {
        throw new NetworkError(
          'permanent',
          `${credentials.username} may not publish posts on ${credentials.site}: give the user the Author role or ` +
            'above',
        );
      }
      throw new NetworkError(
        'reconnect_needed',
        `WordPress answered as to a visitor (${wordsOf(answer)}); the Application Password no longer works`,
      );
    }
    if (answer.status !== 200 || !Array.isArray(answer.json)) throw classify(answer, this.now());
    const found = answer.json.find((post: any) => post.slug === slug);
    return found ? this.publishedFrom(found) : undefined;
  }

  private async categoryId(credentials: WordPressCredentials, wanted: string): Promise<number> {
    const answer = await this.http.request(
      route(credentials.apiRoot, '/wp/v2/categories', { search: wanted, per_page: String(PER_PAGE_MAX) }),
      { headers: basic(credentials) },
    );
    if (answer.status !== 200 || !Array.isArray(answer.json)) throw classify(answer, this.now());
    const lower = wanted.toLowerCase();
    const found = answer.json.find(
      (c: any) => String(c.slug).toLowerCase() === lower || decodeEntities(String(c.name)).toLowerCase() === lower,
    );
    if (!found)
      throw new NetworkError(
        'permanent',
        `${new URL(credentials.site).host} has no category "${wanted}"; make it in WordPress first, or name one the ` +
          'site has',
      );
    return found.id;
  }

  private async tagId(credentials: WordPressCredentials, wanted: string): Promise<number> {
    const answer = await this.http.request(
      route(credentials.apiRoot, '/wp/v2/tags', { search: wanted, per_page: String(PER_PAGE_MAX) }),
      { headers: basic(credentials) },
    );
    if (answer.status !== 200 || !Array.isArray(answer.json)) throw classify(answer, this.now());
    const lower = wanted.toLowerCase();
    const found = answer.json.find(
      (t: any) => String(t.slug).toLowerCase() === lower || decodeEntities(String(t.name)).toLowerCase() === lower,
    );
    if (found) return found.id;
    const made = await this.http.request(route(credentials.apiRoot, '/wp/v2/tags'), {
      method: 'POST',
      headers: basic(credentials),
      json: { name: wanted },
    });
    if (made.status === 201 && typeof made.json?.id === 'number') return made.json.id;
    const existing = made.json?.data?.term_id;
    if (made.json?.code === 'term_exists' && typeof existing === 'number') return existing;
    throw classify(made, this.now());
  }

  private async upload(
    channel: ConnectorChannel,
    credentials: WordPressCredentials,
    url: string,
    alt: string | undefined,
  ): Promise<{ id: number; sourceUrl: string }> {
    const file = await downloadMedia(this.media, channel.accountId, url, this.media.maxBytes);
    const name = fileName(url, file.contentType);
    const answer = await this.http.request(route(credentials.apiRoot, '/wp/v2/media'), {
      method: 'POST',
      headers: {
        ...basic(credentials),
        'content-type': file.contentType,
        'content-disposition': `attachment; filename="${name}"`,
      },
      body: file.bytes,
    });
    if (answer.status !== 201 || typeof answer.json?.id !== 'number') throw classify(answer, this.now());
    if (alt) {
      const described = await this.http.request(route(credentials.apiRoot, `/wp/v2/media/${answer.json.id}`), {
        method: 'POST',
        headers: basic(credentials),
        json: { alt_text: alt },
      });
      if (described.status !== 200) throw classify(described, this.now());
    }
    return { id: answer.json.id, sourceUrl: String(answer.json.source_url ?? '') };
  }

  private async commentCount(credentials: WordPressCredentials, postId: number): Promise<number> {
    const answer = await this.http.request(
      route(credentials.apiRoot, '/wp/v2/comments', { post: String(postId), per_page: '1', _fields: 'id' }),
      { headers: basic(credentials) },
    );
    if (answer.status !== 200) throw classify(answer, this.now());
    return Number(answer.header('x-wp-total') ?? '0') || 0;
  }

  private async discoverApiRoot(site: string): Promise<string> {
    const home = await this.http.request(`${site}/`, { headers: { accept: 'text/html' } });
    for (const link of (home.header('link') ?? '').split(/,(?=\s*<)/)) {
      const match = /<([^>]+)>\s*;\s*rel="([^"]+)"/.exec(link);
      if (match && match[2] === API_LINK) return new URL(match[1], `${site}/`).toString();
    }
    return `${site}/wp-json/`;
  }

  private publishedFrom(post: any): PublishedPost {
    const date = Date.parse(`${post.date_gmt ?? ''}Z`);
    return {
      networkPostId: String(post.id),
      permalinkUrl: String(post.link),
      publishedAt: Number.isNaN(date) ? this.now() : date,
    };
  }

  private async credentials(channel: ConnectorChannel): Promise<WordPressCredentials> {
    return (await channel.vault.read()).credentials as unknown as WordPressCredentials;
  }
}

function classify(answer: NetworkAnswer, now: number): NetworkError {
  const words =
    `WordPress answered HTTP ${answer.status}` +
    (answer.json === undefined ? " with a page that is not the REST API's JSON" : `: ${wordsOf(answer)}`);
  if (answer.status === 429 || answer.status >= 500)
    return new NetworkError('retry_later', words, retryAtFrom(answer, now));
  if (answer.status === 401)
    return new NetworkError('reconnect_needed', `${words}; the Application Password no longer works`);
  if (answer.json === undefined) return new NetworkError('retry_later', words);
  return new NetworkError('permanent', words);
}

function wordsOf(answer: NetworkAnswer): string {
  const code = answer.json?.code;
  const message = answer.json?.message;
  return [code, message].filter((v) => typeof v === 'string').join(': ') || `HTTP ${answer.status}`;
}

/** A route under the API root, which is a path (/wp-json/) or a query (?rest_route=/) by the site's permalinks. */
function route(apiRoot: string, path: string, params: Record<string, string> = {}): string {
  const url = new URL(apiRoot);
  if (url.searchParams.has('rest_route'))
    url.searchParams.set('rest_route', `${url.searchParams.get('rest_route')!.replace(/\/$/, '')}${path}`);
  else url.pathname = `${url.pathname.replace(/\/$/, '')}${path}`;
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}

function basic(credentials: Pick<WordPressCredentials, 'username' | 'applicationPassword'>): Record<string, string> {
  const pair = `${credentials.username}:${credentials.applicationPassword}`;
  return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

function siteAddress(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim().includes('://') ? raw.trim() : `https://${raw.trim()}`);
  } catch {
    throw new NetworkError('permanent', `"${raw}" is not a site address; give it as https://example.com`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new NetworkError('permanent', `"${raw}" is not a site address; give it as https://example.com`);
  return `${url.origin}${url.pathname.replace(/\/$/, '')}`;
}

/** Herald's slug for a post: the same for every attempt, and unlike any a person types. */
function slugFor(postKey: PostKey): string {
  return `herald-${postKey.id.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}

function titleAndBody(text: string, title: string | undefined): { title: string; body: string } {
  if (title?.trim()) return { title: title.trim(), body: text };
  const [first, ...rest] = text.split('\n');
  return { title: first.trim(), body: rest.join('\n').trim() };
}

function paragraphs(text: string): string {
  const escapeHtml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('\n');
}

/** The block the editor itself writes for a video of the media library, so the post edits as any other. */
function videoBlock(video: { id: number; sourceUrl: string }): string {
  const src = video.sourceUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return (
    `<!-- wp:video {"id":${video.id}} -->\n` +
    `<figure class="wp-block-video"><video controls src="${src}"></video></figure>\n` +
    '<!-- /wp:video -->'
  );
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
};

function fileName(url: string, contentType: string): string {
  const last = decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '').replace(/[^A-Za-z0-9._-]/g, '');
  if (/\.[a-z0-9]{2,4}$/i.test(last)) return last;
  return `${last || 'media'}.${EXTENSIONS[contentType] ?? 'bin'}`;
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#039);/g,
    (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#039': "'" })[name] ?? '',
  );
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
