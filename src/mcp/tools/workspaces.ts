import type { DomainDeps } from '../../domain/deps.js';
import { listWorkspaces } from '../../domain/directory.js';
import type { AreaTools } from './context.js';

export function workspaceTools(deps: DomainDeps): AreaTools {
  return {
    get_workspaces: async (_args, { principal }) => ({ data: await listWorkspaces(deps, principal) }),
  };
}
