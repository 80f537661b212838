/**
 * A saved post's files as the composer holds them: from the library where they are in it (so their size and type are
 * known to the checks), with their alt text; a link from elsewhere as it is. The form of an edit or a copy starts from
 * them, and the post page's previews show them.
 */
import type { components } from '../../../../sdk/src/index.js';
import { api, call } from '../../api.js';
import type { ChosenMedia } from './media-field.js';
import type { Media } from './upload.js';

type Post = components['schemas']['Post'];
export type Library = Map<string, Media>;

/** The newest files of the library, by address. */
export async function libraryOf(): Promise<Library> {
  const library = await call(api.GET('/media', { params: { query: { limit: 100 } } }));
  return new Map(library.data.map((m) => [m.url, m]));
}

/** The post's files as the media field shows them: from the library where they are in it, with their alt text. */
export async function mediaOf(post: Post, library?: Library): Promise<ChosenMedia[]> {
  const urls = [
    ...post.imageUrls.map((url) => ({ url, kind: 'image' as const })),
    ...post.videoUrls.map((url) => ({ url, kind: 'video' as const })),
  ];
  if (urls.length === 0) return [];
  const byUrl = library ?? (await libraryOf());
  const alt = post.channelOptions?.altText;
  const altTexts = Array.isArray(alt) ? alt.map(String) : [];
  return urls.map(({ url, kind }): ChosenMedia => {
    const altText = kind === 'image' ? (altTexts[post.imageUrls.indexOf(url)] ?? '') : '';
    const known = byUrl.get(url);
    if (known) return { media: known, altText };
    const fileName = decodeURIComponent(new URL(url).pathname.split('/').pop() || url);
    const media: Media = {
      id: url,
      url,
      kind,
      fileName,
      contentType: '',
      sizeBytes: 0,
      width: null,
      height: null,
      durationSeconds: null,
      workspaceId: '',
      createdAt: '',
    };
    return { media, altText, external: true };
  });
}
