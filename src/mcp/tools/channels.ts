import type { DomainDeps } from '../../domain/deps.js';
import { filterChannels, getChannel, listChannels } from '../../domain/directory.js';
import { searchLocations } from '../../domain/locations.js';
import type { AreaTools } from './context.js';

export function channelTools(deps: DomainDeps): AreaTools {
  return {
    get_channels: async (_args, { principal }) => ({ data: await listChannels(deps, principal) }),
    get_channel: async ({ channelId }, { principal }) => ({ data: await getChannel(deps, principal, channelId) }),
    get_filtered_channels: async (filter, { principal }) => ({ data: await filterChannels(deps, principal, filter) }),
    location_search: async (query) => ({ data: searchLocations(query) }),
  };
}
