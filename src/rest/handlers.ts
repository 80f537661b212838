import type { RestHandlers } from '../../generated/rest/handlers.js';
import type { DomainDeps } from '../domain/deps.js';
import { getProfile, listChannels, listWorkspaces } from '../domain/directory.js';
import type { Principal } from '../domain/principal.js';
import { bulkCreatePosts } from '../domain/posts/bulk-create-posts.js';
import { createPosts } from '../domain/posts/create-posts.js';
import { bulkDeletePosts, deletePost } from '../domain/posts/delete-posts.js';
import { getPost, getPostGroup } from '../domain/posts/get-post.js';
import { listPosts, listScheduledPosts } from '../domain/posts/list-posts.js';
import { updatePost } from '../domain/posts/update-post.js';
import { settleUnconfirmed } from '../domain/posts/unconfirmed-posts.js';
import { retryFailedPost } from '../domain/posts/retry-post.js';
import { movePostTo, teamCalendar } from '../domain/calendars/team-calendar.js';
import { bestTimes } from '../domain/insights/best-times.js';
import { insightsCsv, insightsReport, postInsights } from '../domain/insights/insights-report.js';
import {
  approvePost,
  assignReviewer,
  decideApprovals,
  listPendingApprovals,
  rejectPost,
} from '../domain/approvals/approvals.js';
import { updateChannel } from '../domain/channel-settings.js';
import { applyLabels, bulkLabel, createLabel, listLabels, removeLabels } from '../domain/labels/labels.js';
import { getPostHistory } from '../domain/posts/post-history.js';
import { clearQueue, getSchedule, pauseQueue, reorderQueue, resumeQueue, setSchedule } from '../domain/queue/queue.js';
import { listCollections, recyclePost } from '../domain/recycling/recycling.js';
import { listEvents } from '../domain/events/events.js';
import { listDeliveries, redeliver } from '../domain/webhooks/webhook-deliveries.js';
import { createMemberApiKey, listApiKeys, revokeMemberApiKey } from '../domain/api-keys.js';
import {
  listConnectedApps,
  listMemberConnectedApps,
  revokeConnectedApp,
  revokeMemberConnectedApp,
} from '../domain/connected-apps.js';
import { addMember, listMembers, removeMember, setMemberRole } from '../domain/members.js';
import { getWorkspace, setWorkspaceApproval } from '../domain/workspaces.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  sendWebhookTest,
  updateWebhook,
} from '../domain/webhooks/webhook-endpoints.js';
import { completeMediaUpload, createMediaUpload, listMedia } from '../domain/media/media-library.js';
import { generateImage, generatePost, rewrite, suggestHashtags } from '../domain/ai/ai-helpers.js';
import {
  connectChannel,
  disconnectChannel,
  listNetworks,
  reconnectChannel,
  type ConnectAnswer,
} from '../domain/networks/channel-connections.js';

/** A credential network answers 201 with the channel; an OAuth one 200 with where to grant access. */
function connected(answer: ConnectAnswer) {
  const warning = answer.warning ? { warning: answer.warning } : {};
  return answer.kind === 'connected'
    ? { status: 201 as const, body: { data: answer.channels, ...warning } }
    : { status: 200 as const, body: { authorizationUrl: answer.authorizationUrl, ...warning } };
}

export interface RestContext {
  principal: Principal;
}

/** Maps each REST operation to its domain call; no rules live here. */
export function restHandlers(deps: DomainDeps): RestHandlers<RestContext> {
  return {
    getProfile: async (_req, { principal }) => ({ status: 200, body: await getProfile(deps, principal) }),
    createPostLegacy: async (req, { principal }) => ({
      status: 201,
      body: { data: await createPosts(deps, principal, req.body, 'api') },
    }),
    listChannels: async (_req, { principal }) => ({ status: 200, body: { data: await listChannels(deps, principal) } }),
    listNetworks: async () => ({ status: 200, body: { data: listNetworks(deps) } }),
    connectChannel: async (req, { principal }) => {
      const { network, workspaceId, timezone, ...fields } = req.body;
      return connected(await connectChannel(deps, principal, { network, workspaceId, timezone, fields }));
    },
    reconnectChannel: async (req, { principal }) =>
      connected(await reconnectChannel(deps, principal, req.params.channelId, req.body ?? {})),
    disconnectChannel: async (req, { principal }) => ({
      status: 200,
      body: { data: await disconnectChannel(deps, principal, req.params.channelId) },
    }),
    updateChannel: async (req, { principal }) => ({
      status: 200,
      body: { data: await updateChannel(deps, principal, req.params.channelId, req.body) },
    }),
    listWorkspaces: async (_req, { principal }) => ({
      status: 200,
      body: { data: await listWorkspaces(deps, principal) },
    }),
    createPosts: async (req, { principal }) => ({
      status: 201,
      body: { data: await createPosts(deps, principal, req.body, 'api') },
    }),
    listPosts: async (req, { principal }) => ({ status: 200, body: await listPosts(deps, principal, req.query) }),
    listScheduledPosts: async (req, { principal }) => ({
      status: 200,
      body: await listScheduledPosts(deps, principal, req.query),
    }),
    bulkCreatePosts: async (req, { principal }) => ({
      status: 200,
      body: await bulkCreatePosts(deps, principal, req.body.posts, 'bulk'),
    }),
    bulkDeletePosts: async (req, { principal }) => ({
      status: 200,
      body: await bulkDeletePosts(deps, principal, req.body.postIds, req.body.dryRun ?? false),
    }),
    getPost: async (req, { principal }) => ({
      status: 200,
      body: { data: await getPost(deps, principal, req.params.postId) },
    }),
    updatePost: async (req, { principal }) => ({
      status: 200,
      body: { data: await updatePost(deps, principal, req.params.postId, req.body) },
    }),
    deletePost: async (req, { principal }) => ({
      status: 200,
      body: { data: await deletePost(deps, principal, req.params.postId) },
    }),
    getPostGroup: async (req, { principal }) => ({
      status: 200,
      body: { data: await getPostGroup(deps, principal, req.params.postId) },
    }),
    getPostHistory: async (req, { principal }) => ({
      status: 200,
      body: { data: await getPostHistory(deps, principal, req.params.postId) },
    }),
    getChannelSchedule: async (req, { principal }) => ({
      status: 200,
      body: { data: await getSchedule(deps, principal, req.params.channelId) },
    }),
    setChannelSchedule: async (req, { principal }) => ({
      status: 200,
      body: { data: await setSchedule(deps, principal, req.params.channelId, req.body.slots) },
    }),
    pauseQueue: async (req, { principal }) => ({
      status: 200,
      body: { data: await pauseQueue(deps, principal, req.params.channelId) },
    }),
    resumeQueue: async (req, { principal }) => ({
      status: 200,
      body: { data: await resumeQueue(deps, principal, req.params.channelId) },
    }),
    clearQueue: async (req, { principal }) => ({
      status: 200,
      body: await clearQueue(deps, principal, req.params.channelId, req.body?.dryRun ?? true),
    }),
    reorderQueue: async (req, { principal }) => ({
      status: 200,
      body: { data: await reorderQueue(deps, principal, req.params.channelId, req.body.postId, req.body.position) },
    }),
    listLabels: async (req, { principal }) => ({
      status: 200,
      body: { data: await listLabels(deps, principal, req.query) },
    }),
    createLabel: async (req, { principal }) => ({
      status: 201,
      body: { data: await createLabel(deps, principal, req.body) },
    }),
    applyLabels: async (req, { principal }) => ({
      status: 200,
      body: { data: await applyLabels(deps, principal, req.params.postId, req.body.labelIds) },
    }),
    removeLabel: async (req, { principal }) => ({
      status: 200,
      body: { data: await removeLabels(deps, principal, req.params.postId, [req.params.labelId]) },
    }),
    bulkLabelPosts: async (req, { principal }) => ({ status: 200, body: await bulkLabel(deps, principal, req.body) }),
    recyclePost: async (req, { principal }) => ({
      status: 201,
      body: await recyclePost(deps, principal, req.params.postId, req.body ?? {}),
    }),
    listCollections: async (_req, { principal }) => ({
      status: 200,
      body: { data: await listCollections(deps, principal) },
    }),
    listPendingApprovals: async (req, { principal }) => ({
      status: 200,
      body: { data: await listPendingApprovals(deps, principal, req.query) },
    }),
    settlePost: async (req, { principal }) => ({
      status: 200,
      body: {
        data: await settleUnconfirmed(
          deps,
          principal,
          req.params.postId,
          req.body.published ? { published: true, permalinkUrl: req.body.permalinkUrl } : { published: false },
        ),
      },
    }),
    approvePost: async (req, { principal }) => ({
      status: 200,
      body: { data: await approvePost(deps, principal, req.params.postId, req.body?.version) },
    }),
    rejectPost: async (req, { principal }) => ({
      status: 200,
      body: { data: await rejectPost(deps, principal, req.params.postId, req.body.reason, req.body.version) },
    }),
    decideApprovals: async (req, { principal }) => ({
      status: 200,
      body: await decideApprovals(deps, principal, req.body),
    }),
    assignReviewer: async (req, { principal }) => ({
      status: 200,
      body: { data: await assignReviewer(deps, principal, req.params.postId, req.body.reviewerUserId) },
    }),
    listEvents: async (req, { principal }) => ({
      status: 200,
      body: await listEvents(deps, principal, req.query ?? {}),
    }),
    listWebhooks: async (_req, { principal }) => ({ status: 200, body: { data: await listWebhooks(deps, principal) } }),
    createWebhook: async (req, { principal }) => ({
      status: 201,
      body: { data: await createWebhook(deps, principal, req.body) },
    }),
    getWebhook: async (req, { principal }) => ({
      status: 200,
      body: { data: await getWebhook(deps, principal, req.params.webhookId) },
    }),
    updateWebhook: async (req, { principal }) => ({
      status: 200,
      body: { data: await updateWebhook(deps, principal, req.params.webhookId, req.body) },
    }),
    deleteWebhook: async (req, { principal }) => ({
      status: 200,
      body: { data: await deleteWebhook(deps, principal, req.params.webhookId) },
    }),
    rotateWebhookSecret: async (req, { principal }) => ({
      status: 200,
      body: { data: await rotateWebhookSecret(deps, principal, req.params.webhookId) },
    }),
    sendWebhookTest: async (req, { principal }) => ({
      status: 202,
      body: { data: await sendWebhookTest(deps, principal, req.params.webhookId) },
    }),
    listWebhookDeliveries: async (req, { principal }) => ({
      status: 200,
      body: await listDeliveries(deps, principal, req.params.webhookId, req.query ?? {}),
    }),
    redeliverWebhook: async (req, { principal }) => ({
      status: 202,
      body: { data: await redeliver(deps, principal, req.params.webhookId, req.body) },
    }),
    listApiKeys: async (_req, { principal }) => ({ status: 200, body: { data: await listApiKeys(deps, principal) } }),
    createApiKey: async (req, { principal }) => ({
      status: 201,
      body: { data: await createMemberApiKey(deps, principal, req.body) },
    }),
    revokeApiKey: async (req, { principal }) => ({
      status: 200,
      body: { data: await revokeMemberApiKey(deps, principal, req.params.keyId) },
    }),
    listConnectedApps: async (_req, { principal }) => ({
      status: 200,
      body: { data: await listConnectedApps(deps, principal) },
    }),
    revokeConnectedApp: async (req, { principal }) => ({
      status: 200,
      body: { data: await revokeConnectedApp(deps, principal, req.params.clientId) },
    }),
    listMembers: async (_req, { principal }) => ({ status: 200, body: { data: await listMembers(deps, principal) } }),
    addMember: async (req, { principal }) => ({
      status: 201,
      body: { data: await addMember(deps, principal, req.body) },
    }),
    setMemberRole: async (req, { principal }) => ({
      status: 200,
      body: { data: await setMemberRole(deps, principal, req.params.userId, req.body) },
    }),
    removeMember: async (req, { principal }) => ({
      status: 200,
      body: { data: await removeMember(deps, principal, req.params.userId) },
    }),
    listMemberConnectedApps: async (req, { principal }) => ({
      status: 200,
      body: { data: await listMemberConnectedApps(deps, principal, req.params.userId) },
    }),
    revokeMemberConnectedApp: async (req, { principal }) => ({
      status: 200,
      body: { data: await revokeMemberConnectedApp(deps, principal, req.params.userId, req.params.clientId) },
    }),
    getCalendar: async (req, { principal }) => ({
      status: 200,
      body: { data: await teamCalendar(deps, principal, req.query ?? {}) },
    }),
    getInsights: async (req, { principal }) => ({
      status: 200,
      body: { data: await insightsReport(deps, principal, req.query ?? {}) },
    }),
    exportInsights: async (req, { principal }) => ({
      status: 200,
      body: await insightsCsv(deps, principal, req.query ?? {}),
    }),
    getPostInsights: async (req, { principal }) => ({
      status: 200,
      body: { data: await postInsights(deps, principal, req.params.postId) },
    }),
    getBestTimes: async (req, { principal }) => ({
      status: 200,
      body: { data: await bestTimes(deps, principal, req.params.channelId, req.query ?? {}) },
    }),
    retryPost: async (req, { principal }) => ({
      status: 200,
      body: { data: await retryFailedPost(deps, principal, req.params.postId) },
    }),
    movePost: async (req, { principal }) => {
      const { post, from } = await movePostTo(deps, principal, req.params.postId, req.body);
      return { status: 200, body: { data: post, meta: { from: new Date(from).toISOString() } } };
    },
    getWorkspace: async (req, { principal }) => ({
      status: 200,
      body: { data: await getWorkspace(deps, principal, req.params.workspaceId) },
    }),
    updateWorkspace: async (req, { principal }) => ({
      status: 200,
      body: { data: await setWorkspaceApproval(deps, principal, req.params.workspaceId, req.body.approvalRequired) },
    }),
    listMedia: async (req, { principal }) => ({ status: 200, body: await listMedia(deps, principal, req.query ?? {}) }),
    createMediaUpload: async (req, { principal }) => ({
      status: 201,
      body: { data: await createMediaUpload(deps, principal, req.body) },
    }),
    completeMediaUpload: async (req, { principal }) => ({
      status: 200,
      body: { data: await completeMediaUpload(deps, principal, { uploadId: req.params.uploadId }) },
    }),
    generatePostDraft: async (req, { principal }) => ({
      status: 200,
      body: await generatePost(deps, principal, req.body),
    }),
    rewriteText: async (req, { principal }) => ({ status: 200, body: await rewrite(deps, principal, req.body) }),
    suggestHashtags: async (req, { principal }) => ({
      status: 200,
      body: await suggestHashtags(deps, principal, req.body),
    }),
    generateImage: async (req, { principal }) => ({
      status: 201,
      body: await generateImage(deps, principal, req.body),
    }),
  };
}
