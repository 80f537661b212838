import type { DomainDeps } from '../../domain/deps.js';
import { importMediaFromUrl } from '../../domain/media/media-import.js';
import { completeMediaUpload, createMediaUpload } from '../../domain/media/media-library.js';
import type { AreaTools } from './context.js';

export function mediaTools(deps: DomainDeps): AreaTools {
  return {
    create_media_upload: async (args, { principal }) => createMediaUpload(deps, principal, args),
    complete_media_upload: async (args, { principal }) => ({ data: await completeMediaUpload(deps, principal, args) }),
    import_media_from_url: async (args, { principal }) => ({ data: await importMediaFromUrl(deps, principal, args) }),
  };
}
