import { UnprocessableError } from '../errors.js';

/**
 * An AI text and image provider. Contract:
 * - `name` says who made a result and is returned with it;
 * - text methods return plain text (no markdown fences); the domain fits it to the network's limit afterwards,
 *   but providers are told the limit so they aim for it;
 * - `generateImage` returns PNG or JPEG bytes; the domain sniffs and stores them in the media library;
 * - failures (HTTP errors, timeouts, malformed answers) throw AiProviderError with a message a user can act on.
 */
export interface AiProvider {
  readonly name: string;
  generatePost(input: {
    prompt: string;
    network: string;
    tone?: string;
    maxChars: number;
    variant: number;
  }): Promise<string>;
  suggestHashtags(input: { text: string; network: string; count: number }): Promise<string[]>;
  rewrite(input: { text: string; instruction: string; network: string; maxChars: number }): Promise<string>;
  generateImage(input: { prompt: string; width: number; height: number }): Promise<Buffer>;
}

export class AiProviderError extends UnprocessableError {
  constructor(provider: string, message: string) {
    super('ai_provider_error', `The AI provider (${provider}) failed: ${message}`);
  }
}
