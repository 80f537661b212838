/** What the composer shows once saved: every post made, one per channel, with what happens to it and when. */
import { useEffect, useRef } from 'preact/hooks';
import type { components } from '../../../../sdk/src/index.js';
import { Link } from '../../router.js';
import { browserTimeZone, formatTime, zoneInWords } from '../../ui/time.js';
import type { Channel } from './preview.js';

type Post = components['schemas']['Post'];

/** The posts a save made; `withoutLabels` says why they stand without their labels, when a label was refused. */
export interface SavedPosts {
  posts: Post[];
  withoutLabels?: string;
}

/** What happens to a saved post and when, as a person says it. */
function whatHappens(post: Post): string {
  const at = post.dateTime
    ? `${formatTime(post.dateTime)}, ${zoneInWords(browserTimeZone, Date.parse(post.dateTime))}`
    : '';
  if (post.status === 'draft') return 'saved as a draft: it does not go out until it is given a time.';
  if (post.approvalStatus === 'PENDING') {
    return `waits for a reviewer to approve it, then goes out${post.isScheduled && at ? ` on ${at}` : ''}.`;
  }
  if (post.inQueue) return `added to the queue: it goes out on ${at}.`;
  if (post.isScheduled) return `scheduled: it goes out on ${at}.`;
  return 'publishing now.';
}

export function Saved(props: { posts: Post[]; channels: Channel[]; withoutLabels?: string; onAnother?: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const name = (id: string) => {
    const c = props.channels.find((channel) => channel.id === id);
    return c ? (c.displayName ?? c.name) : id;
  };
  const count = props.posts.length;
  return (
    <section id="saved" aria-labelledby="saved-title">
      <h2 id="saved-title" ref={heading} tabIndex={-1}>
        {count === 1 ? 'One post saved' : `${count} posts saved, one per channel`}
      </h2>
      {props.withoutLabels && (
        <p class="problem" role="alert">
          They are saved without their labels: {props.withoutLabels}
        </p>
      )}
      <ul class="saved-posts">
        {props.posts.map((p) => (
          <li key={p.id} data-post-id={p.id}>
            <Link href={`/app/posts/${encodeURIComponent(p.id)}`}>{name(p.channelId)}</Link>: {whatHappens(p)}
          </li>
        ))}
      </ul>
      {props.onAnother && (
        <p>
          <button type="button" onClick={props.onAnother}>
            Write another post
          </button>
        </p>
      )}
    </section>
  );
}
