import type { DomainDeps } from '../../domain/deps.js';
import { applyLabels, bulkLabel, createLabel, listLabels, removeLabels } from '../../domain/labels/labels.js';
import type { AreaTools } from './context.js';

export function labelTools(deps: DomainDeps): AreaTools {
  return {
    label_list: async (args, { principal }) => ({ data: await listLabels(deps, principal, args) }),
    label_create: async (args, { principal }) => ({ data: await createLabel(deps, principal, args) }),
    label_apply: async ({ postId, labelIds }, { principal }) => ({
      data: await applyLabels(deps, principal, postId, labelIds),
    }),
    label_remove: async ({ postId, labelIds }, { principal }) => ({
      data: await removeLabels(deps, principal, postId, labelIds),
    }),
    bulk_label: async (args, { principal }) => bulkLabel(deps, principal, args),
  };
}
