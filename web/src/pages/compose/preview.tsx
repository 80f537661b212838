/**
 * What the composer shows of each chosen channel before anything is saved, and the post page of each post: the
 * counter (the network's counting, red past its limit) and a preview card (its count, the text with the part past
 * the limit marked, the media the network takes, the first comment where it makes one, a thread's parts as the
 * chain of replies they become, and every problem the write would refuse). Counting and checks are Herald's own
 * modules (src/domain/networks: text-length.ts, post-fit.ts), bundled, so the page never disagrees
 * with the server; limits and names come from GET /networks.
 */
import type { components } from '../../../../sdk/src/index.js';
import { findCapabilities } from '../../../../src/domain/networks/capabilities.js';
import { validatePost, type KnownMedia } from '../../../../src/domain/networks/post-fit.js';
import { countBy } from '../../../../src/domain/networks/text-length.js';
import type { ChosenMedia } from './media-field.js';
import './preview.css';

export type Channel = components['schemas']['Channel'];
export type NetworkRow = components['schemas']['NetworkCapabilities'];

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The text cut where the network's count reaches the limit, never inside a grapheme. */
function splitAtLimit(text: string, row: NetworkRow): [kept: string, cut: string] {
  if (countBy(row.text.counting, text) <= row.text.limit) return [text, ''];
  let kept = '';
  for (const { segment } of graphemes.segment(text)) {
    if (countBy(row.text.counting, kept + segment) > row.text.limit) break;
    kept += segment;
  }
  return [kept, text.slice(kept.length)];
}

export function Counter(props: { row: NetworkRow; text: string }) {
  const used = countBy(props.row.text.counting, props.text);
  const over = used > props.row.text.limit;
  return (
    <span class={over ? 'counter over' : 'counter'} data-network={props.row.name}>
      {props.row.displayName}: {used} / {props.row.text.limit}
      {over ? `, ${used - props.row.text.limit} too many` : ''}
    </span>
  );
}

export interface PreviewInput {
  channel: Channel;
  row: NetworkRow;
  text: string;
  media: ChosenMedia[];
  firstComment: string;
  /** The thread's parts after the post itself. */
  thread: { text: string; imageUrls: string[]; videoUrls: string[] }[];
  channelOptions: Record<string, unknown> | undefined;
}

/** A part of the thread as its reply: the text with the part past the limit marked, and how many files it carries. */
function ThreadPartPreview(props: { row: NetworkRow; text: string; files: number }) {
  const [kept, cut] = splitAtLimit(props.text, props.row);
  return (
    <li class="preview-part">
      <span class="preview-text">
        ↳ {kept}
        {cut && (
          <mark class="cut" title="Past the limit: the network refuses the part">
            {cut}
          </mark>
        )}
      </span>
      {props.files > 0 && (
        <small class="muted">
          {' '}
          ({props.files} file{props.files > 1 ? 's' : ''})
        </small>
      )}
    </li>
  );
}

export function PreviewCard(props: PreviewInput) {
  const { channel, row, text, media, firstComment } = props;
  const [kept, cut] = splitAtLimit(text, row);
  const images = media.filter((m) => m.media.kind === 'image');
  const shown = media.slice(0, row.media.maxItems);
  const capabilities = findCapabilities(row.name);
  const knownMedia = new Map<string, KnownMedia>(
    media
      .filter((m) => !m.external)
      .map((m) => [
        m.media.url,
        {
          mimeType: m.media.contentType,
          sizeBytes: m.media.sizeBytes,
          width: m.media.width,
          height: m.media.height,
          durationMs: m.media.durationSeconds === null ? null : m.media.durationSeconds * 1000,
        },
      ]),
  );
  const problems = capabilities
    ? validatePost(
        capabilities,
        {
          text,
          imageUrls: images.map((m) => m.media.url),
          videoUrls: media.filter((m) => m.media.kind === 'video').map((m) => m.media.url),
          knownMedia,
          firstComment: firstComment.trim() ? { text: firstComment } : null,
          thread: props.thread,
          channelOptions: props.channelOptions ?? null,
        },
        { requireOptions: true },
      ).map((p) => p.message)
    : [];
  return (
    <article
      class="preview"
      data-channel-id={channel.id}
      aria-label={`Preview on ${channel.displayName ?? channel.name}`}
    >
      <header>
        <strong>{channel.displayName ?? channel.name}</strong>{' '}
        <small>
          {channel.handle} on {row.displayName}
        </small>
      </header>
      <p class="preview-text">
        {kept}
        {cut && (
          <mark class="cut" title="Past the limit: the network refuses the post">
            {cut}
          </mark>
        )}
      </p>
      <p class="preview-count">
        <Counter row={row} text={text} />
      </p>
      {shown.length > 0 && (
        <div class="preview-media">
          {shown.map((m) =>
            m.media.kind === 'image' ? (
              <img key={m.media.id} src={m.media.url} alt={m.altText} class="thumb" width={64} height={64} />
            ) : (
              <span key={m.media.id} class="thumb video-thumb">
                video
              </span>
            ),
          )}
          {media.length > shown.length && (
            <small class="problem">
              {media.length - shown.length} more than {row.displayName} takes
            </small>
          )}
        </div>
      )}
      {firstComment.trim() !== '' && row.firstComment !== 'none' && <p class="preview-comment">↳ {firstComment}</p>}
      {props.thread.length > 0 && row.threads && (
        <ol class="preview-thread" start={2} aria-label="The thread's replies, in order">
          {props.thread.map((part, i) => (
            <ThreadPartPreview
              key={i}
              row={row}
              text={part.text}
              files={part.imageUrls.length + part.videoUrls.length}
            />
          ))}
        </ol>
      )}
      {problems.length > 0 && (
        <ul class="preview-problems">
          {problems.map((message) => (
            <li key={message} class="problem">
              {message}
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}
