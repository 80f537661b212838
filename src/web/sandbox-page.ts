import express from 'express';
import { escapeHtml } from '../http/html.js';
import type { DomainDeps } from '../domain/deps.js';

/**
 * `/sandbox/{channelId}/{postId}`: the sandbox network's permalink, a small HTML page showing what was
 * "published". Every value is escaped; the page loads nothing else.
 */
export function sandboxRouter(store: Pick<DomainDeps['repos']['sandbox'], 'get' | 'replies'>): express.Router {
  const router = express.Router();
  router.get('/sandbox/:channelId/:postId', async (req, res) => {
    const post = await store.get(req.params.channelId, req.params.postId);
    if (!post) {
      res.status(404).type('html').send(page('Not found', '<p>The sandbox has no such post.</p>'));
      return;
    }
    const replies = await store.replies(post.channelId, post.id);
    const at = (id: string) => `/sandbox/${encodeURIComponent(post.channelId)}/${encodeURIComponent(id)}`;
    // A reply (a first comment, a part of a thread) links back to its post, and every reply to its own page, so a
    // thread can be followed part by part.
    const parent = post.replyToId
      ? `<p class="meta"><a href="${escapeHtml(at(post.replyToId))}">In reply to</a></p>`
      : '';
    const media = post.media
      .map((url) => `<li><a href="${escapeHtml(url)}" rel="noreferrer">${escapeHtml(url)}</a></li>`)
      .join('');
    const origin = post.external ? ' · posted outside Herald' : '';
    const body = [
      `<p class="meta">Channel ${escapeHtml(post.channelId)} · ${escapeHtml(new Date(post.createdAt).toISOString())}` +
        `${origin}</p>`,
      parent,
      `<article>${escapeHtml(post.text)}</article>`,
      media ? `<ul>${media}</ul>` : '',
      post.metrics
        ? `<p class="meta">${Object.entries(post.metrics)
            .map(([k, v]) => `${escapeHtml(k)}: ${escapeHtml(String(v))}`)
            .join(' · ')}</p>`
        : '',
      ...replies.map((r) => {
        const files = r.media
          .map((url) => ` <a href="${escapeHtml(url)}" rel="noreferrer">${escapeHtml(url)}</a>`)
          .join('');
        const reply = `<p class="meta"><a href="${escapeHtml(at(r.id))}">Reply</a></p>`;
        return `<aside>${reply}${escapeHtml(r.text)}${files}</aside>`;
      }),
    ].join('\n');
    res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.type('html').send(page('Sandbox post', body));
  });
  return router;
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>${escapeHtml(title)} · Herald sandbox</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}
article,aside{white-space:pre-wrap}aside{border-left:3px solid #ccc;padding-left:1rem;margin-top:1rem}
.meta{color:#666;font-size:.9em}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
}
