import { viewPage } from './view-shell.js';

/**
 * The post preview (create_text_post, create_image_post, update_post): each post as it will look on its channel,
 * its length counted the network's way against the channel's limit (from the result's "herald/postPreview"), the
 * problems that would stop it, and when it goes out.
 */
export const postPreviewHtml = viewPage({
  title: 'Herald post preview',
  style: '',
  body: `<h1>Post preview <span id="summary" class="muted"></span></h1>
<div id="posts" data-root><p class="muted">Waiting for the post…</p></div>`,
  script: `
const root = document.getElementById('posts');
herald.on('ui/notifications/tool-input', () => root.replaceChildren(el('p', { class: 'muted' }, 'Writing the post…')));
herald.on('ui/notifications/tool-result', (result) => {
  if (result.isError) {
    root.replaceChildren(el('p', { class: 'danger', 'data-role': 'error' },
      (result.content && result.content[0] && result.content[0].text) || 'The post was not written.'));
    return;
  }
  const previews = previewsOf(result);
  const posts = postsOf(result);
  document.getElementById('summary').textContent = posts.length === 1 ? '· 1 post' : '· ' + posts.length + ' posts';
  root.replaceChildren(...posts.map((post) => postCard(post, previews.get(post.id))));
});
herald.start({ name: 'herald-post-preview', version: '1.0.0' });
`,
});
