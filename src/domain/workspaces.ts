/**
 * A workspace's settings (REST /workspaces/{workspaceId}, the app's Settings, Workspace).
 *
 * Rules kept here:
 * - everyone in the account may read its workspaces; a workspace of another account is "not found";
 * - requiring approval, or no longer requiring it, takes manage_team: it decides who may publish without a reviewer;
 * - the requirement applies to posts written from then on, created or changed (approval-holds.ts reads it when a
 *   post is written), so posts already held stay held until approved or rejected, and scheduled posts are not held
 *   after the fact until someone changes them.
 */
import type { DomainDeps } from './deps.js';
import { toWorkspaceView, type WorkspaceView } from './directory.js';
import { NotFoundError } from './errors.js';
import { requireScope, type Principal } from './principal.js';
import { setApprovalRequired } from './provisioning.js';

export async function getWorkspace(
  deps: DomainDeps,
  principal: Principal,
  workspaceId: string,
): Promise<WorkspaceView> {
  const workspace = await deps.repos.accounts.getWorkspace(principal.accountId, workspaceId);
  if (!workspace) throw new NotFoundError(`No workspace ${workspaceId} in this account; GET /workspaces lists them.`);
  return toWorkspaceView(workspace);
}

export async function setWorkspaceApproval(
  deps: DomainDeps,
  principal: Principal,
  workspaceId: string,
  approvalRequired: boolean,
): Promise<WorkspaceView> {
  requireScope(principal, 'manage_team');
  await getWorkspace(deps, principal, workspaceId);
  await setApprovalRequired(deps, { accountId: principal.accountId, workspaceId, required: approvalRequired });
  return getWorkspace(deps, principal, workspaceId);
}
