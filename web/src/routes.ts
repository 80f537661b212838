/** Every page of the app and its address; an address not here is followed as a normal link. */
import type { JSX } from 'preact';
import { ComposePage, EditPostPage } from './pages/compose.js';
import { PostsPage } from './pages/posts.js';
import { PostPage } from './pages/post.js';
import { AllContentCalendarPage, TeamCalendarPage } from './pages/calendar.js';
import { ApprovalsPage } from './pages/approvals.js';
import { ChannelsPage } from './pages/channels.js';
import { InsightsPage } from './pages/insights.js';
import { QueuePage } from './pages/queue.js';
import { ApiKeysPage } from './pages/settings-api-keys.js';
import { ConnectedAppsPage } from './pages/settings-connected-apps.js';
import { LabelsPage } from './pages/settings-labels.js';
import { MembersPage } from './pages/settings-members.js';
import { WebhooksPage } from './pages/settings-webhooks.js';
import { WorkspaceSettingsPage } from './pages/settings-workspace.js';

export type RouteParams = Record<string, string>;

export interface Route {
  path: string;
  component: (props: { params: RouteParams; query: URLSearchParams }) => JSX.Element;
}

export const routes: Route[] = [
  { path: '/app', component: PostsPage },
  { path: '/app/posts/:postId', component: PostPage },
  { path: '/app/posts/:postId/edit', component: EditPostPage },
  { path: '/app/calendar', component: TeamCalendarPage },
  { path: '/app/calendar/all', component: AllContentCalendarPage },
  { path: '/app/approvals', component: ApprovalsPage },
  { path: '/app/insights', component: InsightsPage },
  { path: '/app/channels', component: ChannelsPage },
  { path: '/app/channels/:channelId/queue', component: QueuePage },
  { path: '/app/settings', component: WorkspaceSettingsPage },
  { path: '/app/settings/members', component: MembersPage },
  { path: '/app/settings/labels', component: LabelsPage },
  { path: '/app/settings/api-keys', component: ApiKeysPage },
  { path: '/app/settings/connected-apps', component: ConnectedAppsPage },
  { path: '/app/settings/webhooks', component: WebhooksPage },
  { path: '/app/compose', component: ComposePage },
];
