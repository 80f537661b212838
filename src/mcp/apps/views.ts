import { approvalQueueHtml } from './approval-queue-view.js';
import { insightsHtml } from './insights-view.js';
import { postPreviewHtml } from './post-preview-view.js';
import { weekCalendarHtml } from './week-calendar-view.js';

/** A ui:// view Herald serves to MCP Apps hosts (src/mcp/apps/extension.ts). */
export interface View {
  uri: `ui://herald/${string}`;
  name: string;
  title: string;
  description: string;
  html: string;
}

export const VIEWS: readonly View[] = [
  {
    uri: 'ui://herald/post-preview',
    name: 'post-preview',
    title: 'Post preview',
    description:
      'Each post as it will look on its channel, its length against the network limit, and when it goes out.',
    html: postPreviewHtml,
  },
  {
    uri: 'ui://herald/week-calendar',
    name: 'week-calendar',
    title: 'Week calendar',
    description: 'The listed posts on the days they go out, a week at a time.',
    html: weekCalendarHtml,
  },
  {
    uri: 'ui://herald/approval-queue',
    name: 'approval-queue',
    title: 'Approval queue',
    description: 'Posts waiting for approval as they will look, with Approve and Reject buttons.',
    html: approvalQueueHtml,
  },
  {
    uri: 'ui://herald/insights',
    name: 'insights',
    title: 'Insights',
    description:
      'What the posts did in a period against the one before, by channel with its followers, the top posts, and ' +
      'when to post on each channel.',
    html: insightsHtml,
  },
];
