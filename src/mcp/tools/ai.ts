import type { DomainDeps } from '../../domain/deps.js';
import { generateImage, generatePost, rewrite, suggestHashtags } from '../../domain/ai/ai-helpers.js';
import type { AreaTools } from './context.js';

export function aiTools(deps: DomainDeps): AreaTools {
  return {
    generate_post: async (args, { principal }) => generatePost(deps, principal, args),
    suggest_hashtags: async (args, { principal }) => suggestHashtags(deps, principal, args),
    rewrite: async (args, { principal }) => rewrite(deps, principal, args),
    generate_image: async (args, { principal }) => generateImage(deps, principal, args),
  };
}
