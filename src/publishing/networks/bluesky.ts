import crypto from 'node:crypto';
import { imageSize } from 'image-size';
import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import {
  NetworkError,
  type AttemptLookup,
  type CommentLookup,
  type CommentRequest,
  type ConnectedAccount,
  type ConnectionMethod,
  type ConnectorChannel,
  type NetworkConnector,
  type NetworkPost,
  type OpenedCredentials,
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import { tidFrom, tidTimeMs } from './at-tid.js';
import {
  downloadMedia,
  observeBudget,
  retryAtFrom,
  type NetworkAnswer,
  type NetworkHttp,
  type NetworkHttpOptions,
} from './network-http.js';

/**
 * Bluesky (AT Protocol), signed in with an app password ([AT lexicons], NETWORKS.md).
 *
 * Rules kept here:
 * - sign in once (createSession is limited to a few hundred a day): the session's JWTs live in the channel's
 *   vault and are refreshed (refreshSession) before the access JWT expires and on ExpiredToken, then the call
 *   is made once more; a refresh JWT that no longer works signs in again with the app password, and only an
 *   app password Bluesky refuses needs the person to reconnect;
 * - the PDS is the one the person named, else the one the identifier's DID document names, else bsky.social;
 * - exactly once by construction: a post is written with putRecord at a record key derived from the post
 *   (at-tid.ts) and `swapRecord: null` (create only): a retry after any failure lands on the same key, and
 *   InvalidSwap means the post is already there, so it is read back, never made twice;
 * - rich text: links, mentions (resolved to DIDs; one that does not resolve stays plain text) and hashtags
 *   as facets over UTF-8 byte offsets; images as blobs with alt text (channelOptions.altText) and aspect ratio;
 *   a post with a link and no media gets a link card (the page's title, description and image, read through
 *   the SSRF guard; a page that cannot be read leaves the post without a card, never fails it);
 *   a video goes to Bluesky's video service with a service-auth token the PDS issues for uploadBlob, and the
 *   post waits until the service's job is complete (its blob lands in the account's repository);
 * - a first comment is a reply whose root and parent are the post; a part of a thread is a reply whose root is the
 *   thread's first post and whose parent is the part before it, its rkey made from the part's key like a post's;
 * - failures: 429 retries at the `ratelimit-reset` the PDS sent; 5xx and timeouts of reads retry later (a
 *   Bluesky 502 never disconnects a channel); authentication failures need a reconnect; the rest is
 *   permanent with Bluesky's message;
 * - live sync reads the author feed with like, repost, reply and quote counts; a PDS without an AppView (a
 *   self-hosted one) answers no feed, and then the repository's own records are listed without metrics;
 * - the channel's audience is the followersCount of the account's profile (app.bsky.actor.getProfile, proxied to
 *   the AppView by the PDS like the feed); without an AppView there is none, never a zero.
 */
const ENTRYWAY = 'https://bsky.social';
const VIDEO_SERVICE = 'https://video.bsky.app';
const VIDEO_POLL_MS = 1_000;
const VIDEO_WAIT_POLLS = 300;
const PLC_DIRECTORY = 'https://plc.directory';
const POST = 'app.bsky.feed.post';
/** Refresh this long before the access JWT expires, so no call starts with one about to lapse. */
const REFRESH_AHEAD_MS = 60_000;

interface BlueskyCredentials {
  service: string;
  did: string;
  handle: string;
  identifier: string;
  appPassword: string;
  accessJwt: string;
  refreshJwt: string;
}

interface StrongRef {
  uri: string;
  cid: string;
}

export class BlueskyNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.bluesky;
  readonly connection: ConnectionMethod = {
    kind: 'credentials',
    fields: [
      {
        name: 'identifier',
        required: true,
        secret: false,
        description: 'The handle (alice.bsky.social) or DID of the account',
      },
      {
        name: 'appPassword',
        required: true,
        secret: true,
        description: 'An app password made in Bluesky under Settings, Privacy and security, App passwords',
      },
      {
        name: 'service',
        required: false,
        secret: false,
        description: "The account's PDS (https://...); found from the handle when left out",
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
    const identifier = fields.identifier.trim().replace(/^@/, '');
    const service = fields.service ? serviceOrigin(fields.service) : await this.serviceFor(identifier);
    const session = await this.createSession(service, identifier, fields.appPassword, 'permanent');
    const profile = await this.profile(session);
    return {
      networkAccountId: session.did,
      handle: session.handle,
      displayName: profile.displayName,
      avatarUrl: profile.avatarUrl,
      credentials: { ...session },
      expiresAt: jwtExpiry(session.accessJwt),
      textLimit: null,
    };
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    const session = (await channel.vault.read()).credentials as unknown as BlueskyCredentials;
    return { identifier: session.did, service: session.service };
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    await this.refreshed(channel, (await channel.vault.read()).version);
  }

  async revoke(channel: ConnectorChannel): Promise<void> {
    const { credentials } = await channel.vault.read();
    const session = credentials as unknown as BlueskyCredentials;
    // Ends the session at the PDS; the app password itself can only be revoked by the person, in Bluesky.
    await this.http.request(`${session.service}/xrpc/com.atproto.server.deleteSession`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.refreshJwt}` },
    });
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const rkey = tidFrom(request.postKey.id, request.postKey.createdAt);
    const session = await this.session(request.channel);
    const record: Record<string, unknown> = {
      $type: POST,
      text: request.text,
      createdAt: new Date(this.now()).toISOString(),
      ...(await this.facets(session, request.text)),
    };
    const altTexts = stringList(request.channelOptions?.altText);
    if (request.imageUrls.length > 0) record.embed = await this.images(request.channel, request.imageUrls, altTexts);
    else if (request.videoUrls.length > 0)
      record.embed = await this.video(request.channel, request.videoUrls[0], altTexts[0]);
    else {
      const link = firstLink(record.facets);
      const card = link ? await this.linkCard(request.channel, link) : undefined;
      if (card) record.embed = card;
    }
    const langs = stringList(request.channelOptions?.langs);
    if (langs.length > 0) record.langs = langs;
    if (request.replyTo) {
      const root = await this.strongRef(request.channel, request.replyTo.rootNetworkPostId);
      const parent =
        request.replyTo.parentNetworkPostId === request.replyTo.rootNetworkPostId
          ? root
          : await this.strongRef(request.channel, request.replyTo.parentNetworkPostId);
      record.reply = { root, parent };
    }
    await this.putOnce(request.channel, rkey, record);
    return {
      networkPostId: atUri(session.did, rkey),
      permalinkUrl: permalink(session.handle, rkey),
      publishedAt: this.now(),
    };
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const parent = await this.strongRef(request.channel, request.networkPostId);
    const session = await this.session(request.channel);
    const parentKey = request.networkPostId.split('/').pop() ?? '';
    const rkey = tidFrom(request.attemptKey, (tidTimeMs(parentKey) ?? 0) + 1);
    await this.putOnce(request.channel, rkey, {
      $type: POST,
      text: request.text,
      createdAt: new Date(this.now()).toISOString(),
      reply: { root: parent, parent },
      ...(await this.facets(session, request.text)),
    });
    return { networkCommentId: atUri(session.did, rkey) };
  }

  /** The comment's rkey comes from its key, as in comment(): the record is there or it was not made. */
  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const session = await this.session(lookup.channel);
    const parentKey = lookup.networkPostId.split('/').pop() ?? '';
    const rkey = tidFrom(lookup.attemptKey, (tidTimeMs(parentKey) ?? 0) + 1);
    const answer = await this.authed(lookup.channel, (s) =>
      this.http.request(
        `${s.service}/xrpc/com.atproto.repo.getRecord?${query({ repo: s.did, collection: POST, rkey })}`,
        { headers: bearer(s) },
      ),
    );
    if (answer.status === 400 && answer.json?.error === 'RecordNotFound') return undefined;
    if (answer.status !== 200) throw classify(answer, this.now());
    return { networkCommentId: atUri(session.did, rkey) };
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const rkey = tidFrom(lookup.postKey.id, lookup.postKey.createdAt);
    const session = await this.session(lookup.channel);
    const answer = await this.authed(lookup.channel, (s) =>
      this.http.request(
        `${s.service}/xrpc/com.atproto.repo.getRecord?${query({ repo: s.did, collection: POST, rkey })}`,
        { headers: bearer(s) },
      ),
    );
    if (answer.status === 400 && answer.json?.error === 'RecordNotFound') return undefined;
    if (answer.status !== 200) throw classify(answer, this.now());
    const createdAt = Date.parse(answer.json?.value?.createdAt);
    return {
      networkPostId: atUri(session.did, rkey),
      permalinkUrl: permalink(session.handle, rkey),
      publishedAt: Number.isNaN(createdAt) ? this.now() : createdAt,
    };
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const session = await this.session(channel);
    const limit = Math.min(100, Math.max(1, page.limit));
    if (!page.cursor?.startsWith('r:')) {
      const feed = await this.authed(channel, (s) =>
        this.http.request(
          `${s.service}/xrpc/app.bsky.feed.getAuthorFeed?` +
            query({
              actor: s.did,
              limit: String(limit),
              filter: 'posts_no_replies',
              ...(page.cursor ? { cursor: page.cursor.slice(2) } : {}),
            }),
          { headers: bearer(s) },
        ),
      );
      if (feed.status === 200) {
        const posts = (feed.json?.feed ?? [])
          .map((item: any) => item.post)
          .filter((post: any) => post?.author?.did === session.did);
        return {
          posts: posts.map((post: any) => this.feedPost(session, post)),
          nextCursor: feed.json?.cursor ? `f:${feed.json.cursor}` : null,
        };
      }
      if (feed.status === 429) throw classify(feed, this.now());
    }
    const records = await this.authed(channel, (s) =>
      this.http.request(
        `${s.service}/xrpc/com.atproto.repo.listRecords?` +
          query({
            repo: s.did,
            collection: POST,
            limit: String(limit),
            ...(page.cursor?.startsWith('r:') ? { cursor: page.cursor.slice(2) } : {}),
          }),
        { headers: bearer(s) },
      ),
    );
    if (records.status !== 200) throw classify(records, this.now());
    const posts = (records.json?.records ?? [])
      .filter((r: any) => !r.value?.reply)
      .map((r: any) => this.recordPost(session, r.uri, r.value, {}));
    return { posts, nextCursor: records.json?.cursor ? `r:${records.json.cursor}` : null };
  }

  async audience(channel: ConnectorChannel): Promise<number | null> {
    const profile = await this.authed(channel, (s) =>
      this.http.request(`${s.service}/xrpc/app.bsky.actor.getProfile?${query({ actor: s.did })}`, {
        headers: bearer(s),
      }),
    );
    if (profile.status === 429) throw classify(profile, this.now());
    return profile.status === 200 ? Number(profile.json?.followersCount) : null;
  }

  private feedPost(session: BlueskyCredentials, post: any): NetworkPost {
    return this.recordPost(session, post.uri, post.record ?? {}, {
      likes: post.likeCount ?? 0,
      reposts: post.repostCount ?? 0,
      replies: post.replyCount ?? 0,
      quotes: post.quoteCount ?? 0,
    });
  }

  private recordPost(
    session: BlueskyCredentials,
    uri: string,
    record: any,
    metrics: Record<string, number>,
  ): NetworkPost {
    const rkey = String(uri).split('/').pop() ?? '';
    const createdAt = Date.parse(record.createdAt);
    return {
      networkPostId: uri,
      permalinkUrl: permalink(session.handle, rkey),
      publishedAt: Number.isNaN(createdAt) ? this.now() : createdAt,
      attemptKey: null,
      text: String(record.text ?? ''),
      imageUrls: [],
      metrics,
    };
  }

  /** Writes a record once at its key; a record already there is the one an earlier attempt wrote. */
  private async putOnce(channel: ConnectorChannel, rkey: string, record: Record<string, unknown>): Promise<void> {
    const answer = await this.authed(channel, (s) =>
      this.http.request(`${s.service}/xrpc/com.atproto.repo.putRecord`, {
        method: 'POST',
        headers: bearer(s),
        json: { repo: s.did, collection: POST, rkey, record, swapRecord: null },
      }),
    );
    if (answer.status === 200) return;
    if (answer.status === 400 && answer.json?.error === 'InvalidSwap') return;
    throw classify(answer, this.now());
  }

  private async strongRef(channel: ConnectorChannel, uri: string): Promise<StrongRef> {
    const [, , repo, collection, rkey] = uri.split('/');
    const answer = await this.authed(channel, (s) =>
      this.http.request(`${s.service}/xrpc/com.atproto.repo.getRecord?${query({ repo, collection, rkey })}`, {
        headers: bearer(s),
      }),
    );
    if (answer.status !== 200) throw classify(answer, this.now());
    return { uri: answer.json.uri, cid: answer.json.cid };
  }

  private async images(
    channel: ConnectorChannel,
    urls: readonly string[],
    altTexts: string[],
  ): Promise<Record<string, unknown>> {
    const maxBytes = this.capabilities.media.kinds.image?.maxBytes ?? 2 * 1024 * 1024;
    const images = [];
    for (const [index, url] of urls.entries()) {
      const file = await downloadMedia(this.media, channel.accountId, url, maxBytes);
      let aspectRatio: { width: number; height: number } | undefined;
      try {
        const size = imageSize(file.bytes);
        if (size.width && size.height) aspectRatio = { width: size.width, height: size.height };
      } catch {
        throw new NetworkError('permanent', `${url} is not an image Bluesky can show`);
      }
      const answer = await this.authed(channel, (s) =>
        this.http.request(`${s.service}/xrpc/com.atproto.repo.uploadBlob`, {
          method: 'POST',
          headers: { ...bearer(s), 'content-type': file.contentType },
          body: file.bytes,
        }),
      );
      if (answer.status !== 200) throw classify(answer, this.now());
      images.push({ image: answer.json.blob, alt: altTexts[index] ?? '', ...(aspectRatio ? { aspectRatio } : {}) });
    }
    return { $type: 'app.bsky.embed.images', images };
  }

  private async linkCard(channel: ConnectorChannel, uri: string): Promise<Record<string, unknown> | undefined> {
    let page: string;
    try {
      page = (await downloadMedia(this.media, channel.accountId, uri, 512 * 1024)).bytes.toString('utf8');
    } catch {
      return undefined;
    }
    const meta = (name: string) =>
      new RegExp(`<meta[^>]+(?:property|name)=["']${name}["'][^>]*content=["']([^"']*)["']`, 'i').exec(page)?.[1] ??
      new RegExp(`<meta[^>]+content=["']([^"']*)["'][^>]*(?:property|name)=["']${name}["']`, 'i').exec(page)?.[1];
    const title = decodeEntities(meta('og:title') ?? /<title[^>]*>([^<]*)<\/title>/i.exec(page)?.[1] ?? '').trim();
    const description = decodeEntities(meta('og:description') ?? meta('description') ?? '').trim();
    if (!title && !description) return undefined;
    const external: Record<string, unknown> = {
      uri,
      title: title.slice(0, 300),
      description: description.slice(0, 1000),
    };
    const image = meta('og:image');
    if (image) {
      try {
        const file = await downloadMedia(this.media, channel.accountId, new URL(image, uri).toString(), 1_000_000);
        const answer = await this.authed(channel, (s) =>
          this.http.request(`${s.service}/xrpc/com.atproto.repo.uploadBlob`, {
            method: 'POST',
            headers: { ...bearer(s), 'content-type': file.contentType },
            body: file.bytes,
          }),
        );
        if (answer.status === 200) external.thumb = answer.json.blob;
      } catch {
        // A card without its picture is still a card.
      }
    }
    return { $type: 'app.bsky.embed.external', external };
  }

  private async video(
    channel: ConnectorChannel,
    url: string,
    alt: string | undefined,
  ): Promise<Record<string, unknown>> {
    const file = await downloadMedia(
      this.media,
      channel.accountId,
      url,
      this.capabilities.media.kinds.video?.maxBytes ?? 100 * 1024 * 1024,
    );
    const session = await this.session(channel);
    const audience = `did:web:${new URL(session.service).hostname}`;
    const exp = String(Math.floor(this.now() / 1000) + 30 * 60);
    const auth = await this.authed(channel, (s) =>
      this.http.request(
        `${s.service}/xrpc/com.atproto.server.getServiceAuth?` +
          query({ aud: audience, lxm: 'com.atproto.repo.uploadBlob', exp }),
        { headers: bearer(s) },
      ),
    );
    if (auth.status !== 200 || typeof auth.json?.token !== 'string') throw classify(auth, this.now());
    const name = `${crypto.randomBytes(8).toString('hex')}.mp4`;
    const upload = await this.http.request(
      `${VIDEO_SERVICE}/xrpc/app.bsky.video.uploadVideo?${query({ did: session.did, name })}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${auth.json.token}`, 'content-type': file.contentType },
        body: file.bytes,
      },
    );
    // 409 already_exists: the service has this video already, under the job it names.
    if (upload.status !== 200 && upload.status !== 409) throw classify(upload, this.now());
    const jobId = upload.json?.jobStatus?.jobId ?? upload.json?.jobId;
    if (typeof jobId !== 'string')
      throw new NetworkError('retry_later', "Bluesky's video service answered without a job");
    for (let poll = 0; poll < VIDEO_WAIT_POLLS; poll++) {
      const job = await this.http.request(`${VIDEO_SERVICE}/xrpc/app.bsky.video.getJobStatus?${query({ jobId })}`);
      if (job.status !== 200) throw classify(job, this.now());
      const status = job.json?.jobStatus ?? {};
      if (status.state === 'JOB_STATE_COMPLETED' && status.blob)
        return { $type: 'app.bsky.embed.video', video: status.blob, ...(alt ? { alt } : {}) };
      if (status.state === 'JOB_STATE_FAILED')
        throw new NetworkError(
          'permanent',
          `Bluesky's video service could not process the video: ${status.error ?? status.message ?? 'no reason given'}`,
        );
      await this.http.pause(VIDEO_POLL_MS);
    }
    throw new NetworkError('retry_later', "Bluesky's video service was still processing the video");
  }

  private async facets(session: BlueskyCredentials, text: string): Promise<{ facets?: unknown[] }> {
    // Loaded on first use: @atproto/api holds every lexicon (about 37 MB), which an instance without Bluesky
    // channels should not carry (BENCHMARKS.md, Memory).
    const { RichText } = await import('@atproto/api');
    const rich = new RichText({ text });
    rich.detectFacetsWithoutResolution();
    const facets = [];
    for (const facet of rich.facets ?? []) {
      const mention = facet.features.find((f) => f.$type === 'app.bsky.richtext.facet#mention') as
        | { did: string }
        | undefined;
      if (mention) {
        const did = await this.resolveHandle(session.service, mention.did);
        if (!did) continue;
        mention.did = did;
      }
      facets.push(facet);
    }
    return facets.length > 0 ? { facets } : {};
  }

  private async resolveHandle(service: string, handle: string): Promise<string | undefined> {
    const answer = await this.http.request(`${service}/xrpc/com.atproto.identity.resolveHandle?${query({ handle })}`);
    return answer.status === 200 && typeof answer.json?.did === 'string' ? answer.json.did : undefined;
  }

  /** The PDS the identifier's DID document names, else bsky.social. */
  private async serviceFor(identifier: string): Promise<string> {
    try {
      let did = identifier;
      if (!identifier.startsWith('did:')) {
        const resolved = await this.resolveHandle(ENTRYWAY, identifier);
        if (!resolved) return ENTRYWAY;
        did = resolved;
      }
      const documentUrl = did.startsWith('did:plc:')
        ? `${PLC_DIRECTORY}/${did}`
        : did.startsWith('did:web:')
          ? `https://${decodeURIComponent(did.slice('did:web:'.length))}/.well-known/did.json`
          : undefined;
      if (!documentUrl) return ENTRYWAY;
      const document = await this.http.request(documentUrl);
      const pds = (document.json?.service ?? []).find((s: any) =>
        String(s?.id).endsWith('#atproto_pds'),
      )?.serviceEndpoint;
      return typeof pds === 'string' ? serviceOrigin(pds) : ENTRYWAY;
    } catch (error) {
      if (error instanceof NetworkError && error.kind === 'permanent') throw error;
      return ENTRYWAY;
    }
  }

  private async createSession(
    service: string,
    identifier: string,
    password: string,
    refused: 'permanent' | 'reconnect_needed',
  ): Promise<BlueskyCredentials> {
    const answer = await this.http.request(`${service}/xrpc/com.atproto.server.createSession`, {
      method: 'POST',
      json: { identifier, password },
    });
    if (answer.status === 200 && answer.json?.accessJwt) {
      const { did, handle, accessJwt, refreshJwt } = answer.json;
      return { service, did, handle, identifier, appPassword: password, accessJwt, refreshJwt };
    }
    if (
      answer.status === 401 ||
      answer.json?.error === 'AuthenticationRequired' ||
      answer.json?.error === 'AccountTakedown'
    ) {
      throw new NetworkError(
        refused,
        'Bluesky refused the identifier or app password ' +
          `(${answer.json?.message ?? answer.json?.error ?? answer.status})`,
      );
    }
    throw classify(answer, this.now());
  }

  private async profile(
    session: BlueskyCredentials,
  ): Promise<{ displayName: string | null; avatarUrl: string | null }> {
    const answer = await this.http.request(
      `${session.service}/xrpc/com.atproto.repo.getRecord?` +
        query({ repo: session.did, collection: 'app.bsky.actor.profile', rkey: 'self' }),
    );
    if (answer.status !== 200) return { displayName: null, avatarUrl: null };
    const value = answer.json?.value ?? {};
    const avatar = value.avatar?.ref?.$link;
    return {
      displayName: typeof value.displayName === 'string' ? value.displayName : null,
      avatarUrl:
        typeof avatar === 'string'
          ? `${session.service}/xrpc/com.atproto.sync.getBlob?${query({ did: session.did, cid: avatar })}`
          : null,
    };
  }

  private async session(channel: ConnectorChannel): Promise<BlueskyCredentials> {
    return (await this.fresh(channel)).credentials as unknown as BlueskyCredentials;
  }

  private async fresh(channel: ConnectorChannel): Promise<OpenedCredentials> {
    const opened = await channel.vault.read();
    if (opened.expiresAt !== null && opened.expiresAt < this.now() + REFRESH_AHEAD_MS)
      return this.refreshed(channel, opened.version);
    return opened;
  }

  /**
   * Makes a call with the session; on ExpiredToken refreshes it and makes the call once more; a spent budget pauses the
   * channel.
   */
  private async authed(
    channel: ConnectorChannel,
    call: (session: BlueskyCredentials) => Promise<NetworkAnswer>,
  ): Promise<NetworkAnswer> {
    const opened = await this.fresh(channel);
    let answer = await call(opened.credentials as unknown as BlueskyCredentials);
    if (expiredToken(answer))
      answer = await call((await this.refreshed(channel, opened.version)).credentials as unknown as BlueskyCredentials);
    await observeBudget(channel, answer, this.now());
    return answer;
  }

  private refreshed(channel: ConnectorChannel, version: number): Promise<OpenedCredentials> {
    return channel.vault.refresh(version, async (current) => {
      const session = current as unknown as BlueskyCredentials;
      const answer = await this.http.request(`${session.service}/xrpc/com.atproto.server.refreshSession`, {
        method: 'POST',
        headers: { authorization: `Bearer ${session.refreshJwt}` },
      });
      if (answer.status === 200 && answer.json?.accessJwt) {
        const renewed = {
          ...session,
          accessJwt: answer.json.accessJwt,
          refreshJwt: answer.json.refreshJwt,
          handle: answer.json.handle ?? session.handle,
        };
        return { credentials: { ...renewed }, expiresAt: jwtExpiry(renewed.accessJwt) };
      }
      if (answer.status === 429 || answer.status >= 500) throw classify(answer, this.now());
      // The refresh JWT is spent or revoked: one sign-in with the app password, which only the person can revoke.
      const signedIn = await this.createSession(
        session.service,
        session.identifier || session.did,
        session.appPassword,
        'reconnect_needed',
      );
      return { credentials: { ...signedIn }, expiresAt: jwtExpiry(signedIn.accessJwt) };
    });
  }
}

function classify(answer: NetworkAnswer, now: number): NetworkError {
  const code = answer.json?.error;
  const words =
    `Bluesky answered HTTP ${answer.status}${code ? ` ${code}` : ''}` +
    (answer.json?.message ? `: ${answer.json.message}` : '');
  if (answer.status === 429 || code === 'RateLimitExceeded')
    return new NetworkError('retry_later', words, retryAtFrom(answer, now));
  if (answer.status >= 500) return new NetworkError('retry_later', words, retryAtFrom(answer, now));
  if (
    answer.status === 401 ||
    code === 'AuthenticationRequired' ||
    code === 'InvalidToken' ||
    code === 'AccountTakedown'
  ) {
    return new NetworkError('reconnect_needed', words);
  }
  return new NetworkError('permanent', words);
}

function expiredToken(answer: NetworkAnswer): boolean {
  return (answer.status === 400 || answer.status === 401) && answer.json?.error === 'ExpiredToken';
}

/** When a JWT says it expires (its `exp` claim, read, not verified: the PDS verifies it). */
function jwtExpiry(jwt: string): number | null {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8'));
    return typeof payload.exp === 'number' ? payload.exp * 1000 : null;
  } catch {
    return null;
  }
}

function serviceOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.includes('://') ? raw : `https://${raw}`);
  } catch {
    throw new NetworkError(
      'permanent',
      `"${raw}" is not a Bluesky service URL; give its https origin, e.g. https://bsky.social`,
    );
  }
  return url.origin;
}

function bearer(session: BlueskyCredentials): Record<string, string> {
  return { authorization: `Bearer ${session.accessJwt}` };
}

function query(params: Record<string, string>): string {
  return new URLSearchParams(params).toString();
}

function atUri(did: string, rkey: string): string {
  return `at://${did}/${POST}/${rkey}`;
}

function permalink(handle: string, rkey: string): string {
  return `https://bsky.app/profile/${handle}/post/${rkey}`;
}

function firstLink(facets: unknown): string | undefined {
  for (const facet of Array.isArray(facets) ? facets : []) {
    const link = facet.features?.find((f: any) => f.$type === 'app.bsky.richtext.facet#link');
    if (link?.uri) return link.uri;
  }
  return undefined;
}

function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39|apos);/g,
    (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" })[name] ?? '',
  );
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
