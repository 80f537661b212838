import { postPreviewHtml } from './post-preview-view.js';

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
    description: 'Each post as it will look on its channel, its length against the network limit, and when it goes out.',
    html: postPreviewHtml,
  },
];
