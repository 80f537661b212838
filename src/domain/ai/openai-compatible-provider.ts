import type { AiConfig } from '../../config.js';
import { AiProviderError, type AiProvider } from './ai-provider.js';

/**
 * Any server speaking OpenAI's wire format: POST {base}/chat/completions and {base}/images/generations
 * (OpenAI, Ollama, vLLM, llama.cpp's server). One request per result (some servers ignore `n`).
 * The base URL is set by the operator, not a user, so it is not put through the SSRF guard.
 */
export class OpenAiCompatibleProvider implements AiProvider {
  readonly name: string;

  constructor(private readonly config: AiConfig & { baseUrl: string }) {
    this.name = `openai-compatible:${config.model}`;
  }

  private async post(path: string, body: unknown): Promise<any> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    let response: Response;
    try {
      response = await fetch(`${this.config.baseUrl}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
    } catch (error) {
      const name = (error as Error).name;
      throw new AiProviderError(
        this.name,
        name === 'TimeoutError'
          ? `no answer within ${this.config.timeoutMs} ms; try again, or raise AI_TIMEOUT_MS.`
          : 'it could not be reached; check AI_BASE_URL.',
      );
    }
    const text = await response.text();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const detail =
        typeof parsed?.error?.message === 'string' ? parsed.error.message.slice(0, 300) : `HTTP ${response.status}`;
      throw new AiProviderError(this.name, `${detail} (HTTP ${response.status}).`);
    }
    if (parsed === undefined) throw new AiProviderError(this.name, 'the answer was not JSON.');
    return parsed;
  }

  private async chat(system: string, user: string): Promise<string> {
    const answer = await this.post('/chat/completions', {
      model: this.config.model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      temperature: 0.7,
    });
    const content = answer?.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || content.trim() === '')
      throw new AiProviderError(this.name, 'the answer had no text.');
    return content
      .trim()
      .replace(/^```[a-z]*\n?|\n?```$/g, '')
      .trim();
  }

  async generatePost(input: {
    prompt: string;
    network: string;
    tone?: string;
    maxChars: number;
    variant: number;
  }): Promise<string> {
    return this.chat(
      `You write social media posts for ${input.network}. Answer with the post text only, ` +
        `at most ${input.maxChars} characters` +
        `${input.tone ? `, in a ${input.tone} tone` : ''}. No preamble, no quotes.` +
        (input.variant > 0
          ? ` This is alternative number ${input.variant + 1}: make it different from the obvious version.`
          : ''),
      input.prompt,
    );
  }

  async suggestHashtags(input: { text: string; network: string; count: number }): Promise<string[]> {
    const answer = await this.chat(
      `Suggest up to ${input.count} relevant hashtags for a ${input.network} post, most relevant first. ` +
        'Answer with the hashtags only, separated by spaces.',
      input.text,
    );
    return [...answer.matchAll(/#?([\p{L}\p{N}_]{2,})/gu)].map((m) => `#${m[1]}`).slice(0, input.count);
  }

  async rewrite(input: { text: string; instruction: string; network: string; maxChars: number }): Promise<string> {
    return this.chat(
      `Rewrite the user's social media post for ${input.network} as instructed: ${input.instruction}. ` +
        `Answer with the rewritten text only, at most ${input.maxChars} characters.`,
      input.text,
    );
  }

  async generateImage(input: { prompt: string; width: number; height: number }): Promise<Buffer> {
    // gpt-image models always answer in base64 and refuse response_format; DALL·E-style servers need it asked for.
    const wantsFormat = !this.config.imageModel.startsWith('gpt-image');
    const answer = await this.post('/images/generations', {
      model: this.config.imageModel,
      prompt: input.prompt,
      n: 1,
      size: `${input.width}x${input.height}`,
      ...(wantsFormat ? { response_format: 'b64_json' } : {}),
    });
    const b64 = answer?.data?.[0]?.b64_json;
    if (typeof b64 !== 'string' || b64 === '')
      throw new AiProviderError(this.name, 'the answer had no image (expected data[0].b64_json).');
    return Buffer.from(b64, 'base64');
  }
}
