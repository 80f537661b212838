import { NetworkError, type ConnectorChannel, type PublishRequest } from '../../domain/networks/connector.js';
import type { InstagramCredentials, InstagramGraph } from './instagram-graph.js';

/**
 * The media containers a post is made of (ig-user/media, ig-container, content-publishing: single media, reels,
 * stories, carousel posts).
 *
 * Rules kept here:
 * - Meta downloads each file itself from the URL it is given: the post's own URLs, which for media uploaded to
 *   Herald are its public media URLs ({BASE_URL}/media/{id}/{file}, served with their type and length), never a
 *   preview page;
 * - channelOptions.kind chooses the post: `feed` (default: one image; one video, which Instagram shares as a reel;
 *   or a carousel of 2 to 10 images and videos), `reels` (one video), `story` (one image or video, no caption);
 * - a carousel's items are containers of their own with is_carousel_item, each FINISHED before the carousel
 *   container names them;
 * - every container is waited on until FINISHED; ERROR is permanent with Meta's status, EXPIRED (unused for 24 h)
 *   and still IN_PROGRESS after the wait are retried later with new containers.
 */
const POLL_MS = 1_000;
const POLLS = 120;

export type InstagramKind = 'feed' | 'reels' | 'story';

export function kindOf(request: Pick<PublishRequest, 'channelOptions'>): InstagramKind {
  const kind = request.channelOptions?.kind;
  return kind === 'reels' || kind === 'story' ? kind : 'feed';
}

/** Creates the post's container (and its items' first), waits until it can be published, and returns its id. */
export async function buildContainer(
  graph: InstagramGraph,
  channel: ConnectorChannel,
  c: InstagramCredentials,
  request: PublishRequest,
  maxItems: number,
): Promise<string> {
  const kind = kindOf(request);
  const items = [
    ...request.imageUrls.map((url) => ({ url, video: false })),
    ...request.videoUrls.map((url) => ({ url, video: true })),
  ];
  const create = async (fields: Record<string, string>) => {
    const made = await graph.expect(channel, c, `${c.igUserId}/media`, { method: 'POST', form: fields });
    if (typeof made?.id !== 'string')
      throw new NetworkError('retry_later', 'Instagram answered a container without its id');
    return made.id as string;
  };
  const media = (item: { url: string; video: boolean }): Record<string, string> =>
    item.video ? { video_url: item.url } : { image_url: item.url };

  let container: string;
  if (kind === 'story') {
    if (items.length !== 1)
      throw new NetworkError(
        'permanent',
        `An Instagram story is one image or one video; this post has ${items.length}`,
      );
    container = await create({ media_type: 'STORIES', ...media(items[0]) });
  } else if (kind === 'reels' || (items.length === 1 && items[0].video)) {
    if (items.length !== 1 || !items[0].video)
      throw new NetworkError('permanent', 'An Instagram reel is exactly one video (videoUrls) and no images');
    const shareToFeed = request.channelOptions?.shareToFeed;
    container = await create({
      media_type: 'REELS',
      ...media(items[0]),
      caption: request.text,
      ...(typeof shareToFeed === 'boolean' ? { share_to_feed: String(shareToFeed) } : {}),
    });
  } else if (items.length === 1) {
    container = await create({ ...media(items[0]), caption: request.text });
  } else {
    if (items.length > maxItems)
      throw new NetworkError(
        'permanent',
        `An Instagram carousel takes at most ${maxItems} images and videos; this post has ${items.length}`,
      );
    const children: string[] = [];
    for (const item of items)
      children.push(
        await create({ ...(item.video ? { media_type: 'VIDEO' } : {}), ...media(item), is_carousel_item: 'true' }),
      );
    for (const child of children) await finished(graph, channel, c, child);
    container = await create({ media_type: 'CAROUSEL', children: children.join(','), caption: request.text });
  }
  await finished(graph, channel, c, container);
  return container;
}

/** A container's status_code (IN_PROGRESS, FINISHED, ERROR, EXPIRED, PUBLISHED) and Meta's words for an error. */
export async function containerStatus(
  graph: InstagramGraph,
  channel: ConnectorChannel,
  c: InstagramCredentials,
  id: string,
): Promise<{ code: string; status: string }> {
  const answer = await graph.expect(channel, c, `${id}?fields=status_code,status`, {}, { statusRead: true });
  return { code: String(answer.status_code ?? ''), status: String(answer.status ?? '') };
}

async function finished(
  graph: InstagramGraph,
  channel: ConnectorChannel,
  c: InstagramCredentials,
  id: string,
): Promise<void> {
  for (let poll = 0; poll < POLLS; poll++) {
    const { code, status } = await containerStatus(graph, channel, c, id);
    if (code === 'FINISHED') return;
    if (code === 'ERROR')
      throw new NetworkError('permanent', `Instagram could not process the media (${status || 'ERROR'})`);
    if (code === 'EXPIRED')
      throw new NetworkError('retry_later', "Instagram's media container expired before it was published");
    await graph.http.pause(POLL_MS);
  }
  throw new NetworkError('retry_later', `Instagram was still processing the media after ${(POLL_MS * POLLS) / 1000} s`);
}
