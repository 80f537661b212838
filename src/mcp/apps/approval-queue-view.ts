import { viewPage } from './view-shell.js';

/**
 * The approval queue (approval_list_pending, approval_approve, approval_reject): each post waiting for approval as it
 * will look, with Approve and Reject (which asks for the reason the author will read). The buttons call
 * approval_approve and approval_reject through the host; the row then shows what Herald answered, its refusal too.
 */
export const approvalQueueHtml = viewPage({
  title: 'Herald approval queue',
  style: `
.actions { display: flex; gap: 8px; align-items: center; margin-top: 8px; flex-wrap: wrap; }
.actions input { flex: 1; min-width: 160px; font: inherit; padding: 4px 8px; border-radius: 8px;
  border: 1px solid var(--color-border-primary); background: var(--color-background-primary);
  color: var(--color-text-primary); }
button.approve { background: var(--color-text-success); border-color: var(--color-text-success);
  color: var(--color-background-primary); }
.outcome { font-size: 12px; font-weight: 600; }
`,
  body: `<h1>Approval queue <span id="summary" class="muted"></span></h1>
<div id="posts" data-root><p class="muted">Waiting for the queue…</p></div>`,
  script: `
const root = document.getElementById('posts');
function errorText(result) {
  return (result.content && result.content[0] && result.content[0].text) || 'Herald refused.';
}
function actions(post) {
  const box = el('div', { class: 'actions', 'data-role': 'actions' });
  const outcome = el('span', { class: 'outcome', 'data-role': 'outcome' });
  const settle = async (name, args, done) => {
    for (const button of box.querySelectorAll('button, input')) button.disabled = true;
    try {
      const result = await herald.callTool(name, args);
      if (result.isError) throw new Error(errorText(result));
      box.replaceChildren(outcome);
      outcome.className = 'outcome success';
      outcome.textContent = done;
      box.closest('article').setAttribute('data-state', name === 'approval_approve' ? 'approved' : 'rejected');
    } catch (error) {
      for (const button of box.querySelectorAll('button, input')) button.disabled = false;
      outcome.className = 'outcome danger';
      outcome.textContent = error.message;
    }
  };
  const approveNow = () => settle('approval_approve', { postId: post.id }, 'Approved');
  const approve = el('button', { class: 'approve', type: 'button', onclick: approveNow }, 'Approve');
  const reject = el('button', { class: 'reject', type: 'button', onclick: () => {
    const reason = el('input', { type: 'text', 'aria-label': 'Why (the author reads this)',
      placeholder: 'Why? The author reads this.', maxlength: 1000 });
    const confirm = el('button', { class: 'confirm-reject', type: 'button', onclick: () => {
      if (!reason.value.trim()) {
        outcome.className = 'outcome danger';
        outcome.textContent = 'Say why, for the author.';
        return;
      }
      settle('approval_reject', { postId: post.id, reason: reason.value.trim() }, 'Rejected');
    } }, 'Reject');
    box.replaceChildren(reason, confirm, outcome);
    reason.focus();
  } }, 'Reject…');
  box.append(approve, reject, outcome);
  return box;
}
function status(post) {
  if (post.approvalStatus === 'APPROVED') return el('span', { class: 'outcome success', 'data-role': 'outcome' },
    'Approved');
  if (post.approvalStatus === 'REJECTED') return el('span', { class: 'outcome danger', 'data-role': 'outcome' },
    'Rejected');
  return null;
}
herald.on('ui/notifications/tool-result', (result) => {
  if (result.isError) {
    root.replaceChildren(el('p', { class: 'danger', 'data-role': 'error' }, errorText(result)));
    return;
  }
  const previews = previewsOf(result);
  const posts = postsOf(result);
  const waiting = posts.filter((p) => p.approvalStatus === 'PENDING').length;
  document.getElementById('summary').textContent = '· ' + waiting + ' waiting';
  root.replaceChildren(...(posts.length
    ? posts.map((post) => postCard(post, previews.get(post.id),
      post.approvalStatus === 'PENDING' ? actions(post) : status(post)))
    : [el('p', { class: 'muted' }, 'Nothing is waiting for approval.')]));
});
herald.start({ name: 'herald-approval-queue', version: '1.0.0' });
`,
});
