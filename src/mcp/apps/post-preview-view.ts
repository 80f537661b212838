import { viewPage } from './view-shell.js';

/**
 * The post preview (create_text_post, create_image_post, update_post): each post as it will look on its channel,
 * its length counted the network's way against the channel's limit (from the result's "herald/postPreview"), the
 * problems that would stop it, and when it goes out.
 */
export const postPreviewHtml = viewPage({
  title: 'Herald post preview',
  style: `
.post header { display: flex; align-items: center; gap: 8px; margin-bottom: 6px; }
.post header .network { margin-left: auto; }
.avatar { width: 32px; height: 32px; border-radius: 50%; display: grid; place-items: center; font-weight: 600; font-size: 13px;
  background: var(--color-background-secondary); color: var(--color-text-secondary); flex: none; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0 8px; }
.media { margin: 0 0 8px; }
.post footer { display: flex; align-items: center; gap: 10px; }
.meter { flex: 1; height: 4px; border-radius: 2px; background: var(--color-background-secondary); overflow: hidden; }
.meter > span { display: block; height: 100%; background: var(--color-text-success); }
.meter.over > span { background: var(--color-text-danger); }
.counter { font-variant-numeric: tabular-nums; font-size: 12px; }
.problems { margin: 8px 0 0; padding-left: 18px; font-size: 12px; }
`,
  body: `<h1>Post preview <span id="summary" class="muted"></span></h1>
<div id="posts"><p class="muted">Waiting for the post…</p></div>`,
  script: `
const root = document.getElementById('posts');
herald.on('ui/notifications/tool-input', () => root.replaceChildren(el('p', { class: 'muted' }, 'Writing the post…')));
herald.on('ui/notifications/tool-result', (result) => {
  if (result.isError) {
    root.replaceChildren(el('p', { class: 'danger', 'data-role': 'error' }, (result.content && result.content[0] && result.content[0].text) || 'The post was not written.'));
    return;
  }
  const previews = previewsOf(result);
  const posts = postsOf(result);
  document.getElementById('summary').textContent = posts.length === 1 ? '· 1 post' : '· ' + posts.length + ' posts';
  root.replaceChildren(...posts.map((post) => card(post, previews.get(post.id))));
});
function initials(name) {
  const words = (name || '?').replace(/^@/, '').split(/\\s+/);
  return (words[0].charAt(0) + (words.length > 1 ? words[words.length - 1].charAt(0) : '')).toUpperCase();
}
function when(post) {
  const format = (iso) => new Intl.DateTimeFormat(herald.context.locale || 'en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: herald.context.timeZone || 'UTC' }).format(new Date(iso)) + (herald.context.timeZone ? '' : ' UTC');
  if (post.approvalStatus === 'PENDING') return 'Waiting for approval' + (post.dateTime ? ' · ' + format(post.dateTime) : '');
  if (post.status === 'draft') return 'Draft' + (post.dateTime ? ' · ' + format(post.dateTime) : '');
  if (post.status === 'published') return 'Published' + (post.publishedAt ? ' · ' + format(post.publishedAt) : '');
  if (post.status === 'failed') return 'Failed: ' + (post.error || 'see the post');
  if (post.dateTime && post.status === 'scheduled') return 'Scheduled · ' + format(post.dateTime);
  return 'Publishing now';
}
function media(post) {
  const parts = [];
  if (post.imageUrls.length) parts.push(post.imageUrls.length === 1 ? '1 image' : post.imageUrls.length + ' images');
  if (post.videoUrls.length) parts.push(post.videoUrls.length === 1 ? '1 video' : post.videoUrls.length + ' videos');
  return parts.length ? el('p', { class: 'media' }, el('span', { class: 'badge' }, parts.join(' · '))) : null;
}
function counter(preview) {
  if (preview.limit === null) return el('span', { class: 'counter muted', 'data-role': 'counter' }, String(preview.length));
  const over = preview.length > preview.limit;
  const meter = el('div', { class: over ? 'meter over' : 'meter' }, el('span'));
  meter.firstChild.style.width = Math.min(100, (preview.length / preview.limit) * 100) + '%';
  return [meter, el('span', { class: over ? 'counter danger' : 'counter', 'data-role': 'counter', title: preview.network.countingNote || null }, preview.length + ' / ' + preview.limit)];
}
function card(post, preview) {
  const channel = preview ? preview.channel : { name: post.channelId, handle: '', displayName: null };
  const shownName = channel.displayName || channel.name;
  return el('article', { class: 'card post', 'data-post-id': post.id, 'data-network': preview && preview.network.name },
    el('header', {},
      el('span', { class: 'avatar' }, initials(shownName)),
      el('div', {}, el('strong', {}, shownName), ' ', el('span', { class: 'muted' }, channel.handle)),
      preview ? el('span', { class: 'badge network' }, preview.network.displayName) : null),
    el('p', { class: 'text' }, post.text),
    media(post),
    el('footer', {}, el('span', { class: 'when muted' }, when(post)), preview ? counter(preview) : null),
    preview && preview.problems.length ? el('ul', { class: 'problems danger', 'data-role': 'problems' }, preview.problems.map((p) => el('li', {}, p))) : null);
}
herald.start({ name: 'herald-post-preview', version: '1.0.0' });
`,
});
