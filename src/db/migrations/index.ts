import type { Knex } from 'knex';
import * as initial from './001_initial.js';
import * as publishing from './002_publishing.js';
import * as oauth from './003_oauth.js';
import * as team from './004_team.js';
import * as mediaCalendars from './005_media_calendars.js';
import * as sessions from './006_sessions.js';
import * as rateLimitLogs from './007_rate_limit_logs.js';
import * as channelConnections from './008_channel_connections.js';
import * as eventsWebhooks from './009_events_webhooks.js';
import * as clientMetadataDocuments from './011_client_metadata_documents.js';
import * as mcpTasks from './012_mcp_tasks.js';
import * as attemptHandles from './017_attempt_handles.js';
import * as dueOrder from './020_due_order.js';
import * as rateLimitAdmissions from './021_rate_limit_admissions.js';
import * as oneDueIndex from './022_one_due_index.js';
import * as postRisk from './023_post_risk.js';
import * as threads from './024_threads.js';
import * as insightsSamples from './025_insights_samples.js';
import * as budgetsInTypescript from './026_budgets_in_typescript.js';
import * as insightsspeedRollups from './027_insight_rollups.js';
import * as insightDirtyMarks from './028_insight_dirty_marks.js';
import * as insightQuarters from './029_insight_quarters.js';
import * as insfastInsightDays from './030_insfast_insight_days.js';

type Migration = { up(db: Knex): Promise<void>; down(db: Knex): Promise<void> };

// Migrations are imported rather than globbed from disk so the same list runs from src (tsx) and dist (tsc).
const migrations: Record<string, Migration> = {
  '001_initial': initial,
  '002_publishing': publishing,
  '003_oauth': oauth,
  '004_team': team,
  '005_media_calendars': mediaCalendars,
  '006_sessions': sessions,
  '007_rate_limit_logs': rateLimitLogs,
  '008_channel_connections': channelConnections,
  '009_events_webhooks': eventsWebhooks,
  '011_client_metadata_documents': clientMetadataDocuments,
  '012_mcp_tasks': mcpTasks,
  '017_attempt_handles': attemptHandles,
  '020_due_order': dueOrder,
  '021_rate_limit_admissions': rateLimitAdmissions,
  '022_one_due_index': oneDueIndex,
  '023_post_risk': postRisk,
  '024_threads': threads,
  '025_insights_samples': insightsSamples,
  '026_budgets_in_typescript': budgetsInTypescript,
  '027_insight_rollups': insightsspeedRollups,
  '028_insight_dirty_marks': insightDirtyMarks,
  '029_insight_quarters': insightQuarters,
  '030_insfast_insight_days': insfastInsightDays,
};

export const migrationSource: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(migrations).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => migrations[name],
};
