/** The team's posts, newest first, with live posts from the networks among them; each opens its page. */
import { api, call } from '../api.js';
import { Link } from '../router.js';
import { Empty, Loading, Page, Problem, StatusBadge } from '../ui/page.js';
import { formatTime } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';

async function load() {
  const [posts, channels] = await Promise.all([
    call(api.GET('/posts', { params: { query: { livePosts: true, limit: 50 } } })),
    call(api.GET('/channels')),
  ]);
  return { posts: posts.data, names: new Map(channels.data.map((c) => [c.id, c.displayName ?? c.name])) };
}

export function PostsPage() {
  const { data, error } = useApi(load, []);
  return (
    <Page title="Posts" actions={<Link class="button" href="/app/compose">Compose a post</Link>}>
      <Problem error={error} />
      {!data && !error && <Loading label="Loading the posts" rows={6} />}
      {data && data.posts.length === 0 && (
        <Empty>
          <p>No posts yet. <Link href="/app/compose">Write one</Link>, or connect a channel first on the Channels page.</p>
        </Empty>
      )}
      {data && data.posts.length > 0 && (
        <table class="posts">
          <caption class="visually-hidden">The team's posts, newest first</caption>
          <thead><tr><th scope="col">Status</th><th scope="col">Post</th><th scope="col">Channel</th><th scope="col">When</th></tr></thead>
          <tbody>
            {data.posts.map((p) => (
              <tr key={p.id}>
                <td><StatusBadge status={p.isLivePost ? 'live' : p.status} /></td>
                <td><Link href={`/app/posts/${encodeURIComponent(p.id)}`}>{p.text.slice(0, 120) || '(no text)'}</Link></td>
                <td>{data.names.get(p.channelId) ?? 'a channel no longer connected'}</td>
                <td>{formatTime(p.dateTime)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}
