import type { AiConfig } from '../../config.js';
import type { AiProvider } from './ai-provider.js';
import { OfflineProvider } from './offline-provider.js';
import { OpenAiCompatibleProvider } from './openai-compatible-provider.js';

/** AI_BASE_URL selects the OpenAI-compatible provider; without it the offline provider answers. */
export function createAiProvider(config: AiConfig): AiProvider {
  return config.baseUrl ? new OpenAiCompatibleProvider({ ...config, baseUrl: config.baseUrl }) : new OfflineProvider();
}
