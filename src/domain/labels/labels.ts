/**
 * Label rules (label_list, label_create, label_apply, label_remove, bulk_label):
 * - A label belongs to a workspace; its name (1-100 characters, trimmed) is unique in that workspace
 *   whatever its case; its colour is #rrggbb.
 * - A label goes only on a post of the same workspace; live posts are read only and refuse labels.
 * - bulk_label needs manage_team and answers per id; one id failing does not stop the others.
 * - Every label change is recorded in the post's history.
 */
import { eachPostId } from '../bulk.js';
import type { components } from '../../../generated/rest/openapi-types.js';
import type { LabelRecord } from '../../db/repositories/labels.js';
import type { DomainDeps } from '../deps.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { requireScope, type Principal } from '../principal.js';
import { recordPostEvents } from '../posts/post-history.js';
import { toPostView, type PostView } from '../posts/post-view.js';
import { writablePost } from '../posts/writable-post.js';
import { toWireTime } from '../time.js';

export type LabelView = components['schemas']['Label'];
const COLOR = /^#[0-9a-fA-F]{6}$/;

function toLabelView(label: LabelRecord): LabelView {
  return {
    id: label.id,
    workspaceId: label.workspaceId,
    name: label.name,
    color: label.color.toLowerCase(),
    createdAt: toWireTime(label.createdAt),
  };
}

export async function listLabels(
  deps: DomainDeps,
  principal: Principal,
  input: { workspaceId?: string } = {},
): Promise<LabelView[]> {
  return (await deps.repos.labels.list(principal.accountId, input.workspaceId)).map(toLabelView);
}

export async function createLabel(
  deps: DomainDeps,
  principal: Principal,
  input: { name: string; color: string; workspaceId?: string },
): Promise<LabelView> {
  const name = input.name.trim();
  if (name === '' || name.length > 100)
    throw new ValidationError('name must be 1 to 100 characters', [
      { path: 'name', message: 'Give a short label name.' },
    ]);
  if (!COLOR.test(input.color))
    throw new ValidationError('color must be a #rrggbb hex colour, e.g. #22aa55', [
      { path: 'color', message: `Got "${input.color}"` },
    ]);
  const workspaces = await deps.repos.accounts.listWorkspaces(principal.accountId);
  const workspace = input.workspaceId ? workspaces.find((w) => w.id === input.workspaceId) : workspaces[0];
  if (!workspace)
    throw new NotFoundError(
      `No workspace ${input.workspaceId ?? ''} in this account; list them with GET /v1/rest/workspaces.`,
    );
  const record: LabelRecord = {
    id: newId(),
    accountId: principal.accountId,
    workspaceId: workspace.id,
    name,
    color: input.color.toLowerCase(),
    createdAt: deps.now(),
  };
  if (!(await deps.repos.labels.create(record))) {
    throw new ConflictError(
      'label_exists',
      `Workspace ${workspace.name} already has a label named "${name}" (names are unique whatever their case); ` +
        'use it, or pick another name.',
    );
  }
  return toLabelView(record);
}

async function requireLabels(
  deps: DomainDeps,
  principal: Principal,
  labelIds: readonly string[],
  workspaceId: string,
): Promise<LabelRecord[]> {
  const found = await deps.repos.labels.findMany(principal.accountId, labelIds);
  const missing = labelIds.filter((id) => !found.some((l) => l.id === id));
  if (missing.length > 0)
    throw new NotFoundError(
      `No label ${missing.join(', ')} in this account; list labels with label_list or GET /v1/rest/labels.`,
    );
  const foreign = found.filter((l) => l.workspaceId !== workspaceId);
  if (foreign.length > 0) {
    throw new ValidationError(
      `Label ${foreign.map((l) => l.name).join(', ')} belongs to another workspace than the post; ` +
        `use a label of the post's workspace.`,
      [{ path: 'labelIds', message: 'Label and post must share a workspace.' }],
    );
  }
  return found;
}

export async function applyLabels(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  labelIds: readonly string[],
): Promise<PostView> {
  const post = await writablePost(deps, principal, postId);
  const labels = await requireLabels(deps, principal, labelIds, post.workspaceId);
  await deps.repos.inTransaction(async (repos) => {
    const added = await repos.labels.apply(
      principal.accountId,
      post.id,
      labels.map((l) => l.id),
      deps.now(),
    );
    if (added.length > 0)
      await recordPostEvents({ ...deps, repos }, principal.accountId, principal, [
        { postId: post.id, kind: 'labelled', details: { labelIds: added } },
      ]);
  });
  return toPostView((await deps.repos.posts.get(principal.accountId, post.id))!);
}

export async function removeLabels(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  labelIds: readonly string[],
): Promise<PostView> {
  const post = await writablePost(deps, principal, postId);
  await requireLabels(deps, principal, labelIds, post.workspaceId);
  await deps.repos.inTransaction(async (repos) => {
    const removed = await repos.labels.remove(principal.accountId, post.id, labelIds);
    if (removed.length > 0)
      await recordPostEvents({ ...deps, repos }, principal.accountId, principal, [
        { postId: post.id, kind: 'unlabelled', details: { labelIds: removed } },
      ]);
  });
  return toPostView((await deps.repos.posts.get(principal.accountId, post.id))!);
}

/** Adds (or removes) labels on many posts (manage_team); each id succeeds or fails on its own. */
export async function bulkLabel(
  deps: DomainDeps,
  principal: Principal,
  input: { postIds: string[]; labelIds: string[]; action?: 'add' | 'remove' },
) {
  requireScope(principal, 'manage_team');
  return eachPostId(input.postIds, async (id) => {
    if (input.action === 'remove') await removeLabels(deps, principal, id, input.labelIds);
    else await applyLabels(deps, principal, id, input.labelIds);
  });
}
