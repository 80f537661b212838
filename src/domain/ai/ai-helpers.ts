import type { DomainDeps } from '../deps.js';
import { ValidationError } from '../errors.js';
import { resolveWorkspace, storeMedia, type MediaView } from '../media/media-library.js';
import { capabilitiesOf, NETWORK_NAMES_AND_ALIASES, type NetworkCapabilities } from '../networks/capabilities.js';
import { countBy, fitText } from '../networks/text-length.js';
import type { Principal } from '../principal.js';
import { consumeWriteBudgetForAppAi } from '../rate-limits.js';

/**
 * The AI helpers (generate_post, suggest_hashtags, rewrite, generate_image).
 *
 * Rules enforced:
 * - every call counts against the account's REST write budget (SPEC: "REST writes, including AI requests"),
 *   on top of whatever budget the surface itself charges: a call from the web app's session is charged here,
 *   keys and tokens by their surface (a REST write, or an MCP tool's charge);
 * - generated text never exceeds the target network's limit, counted the network's way (the capabilities table),
 *   whatever the provider answered; a network Herald has no connector for is refused, as it is for posts;
 * - hashtags start with "#" and are unique (case-insensitively);
 * - every result names the provider that made it;
 * - generated images go into the caller's media library like any other file; nothing is posted.
 */
const DEFAULT_NETWORK = 'sandbox';

const IMAGE_SIZES = {
  square: { width: 1024, height: 1024 },
  portrait: { width: 1024, height: 1536 },
  landscape: { width: 1536, height: 1024 },
} as const;

export async function generatePost(
  deps: DomainDeps,
  principal: Principal,
  input: { prompt: string; network?: string; tone?: string; variants?: number },
): Promise<{
  variants: { text: string; characters: number }[];
  network: string;
  maxCharacters: number;
  provider: string;
}> {
  await consumeWriteBudgetForAppAi(deps, principal);
  const network = input.network ?? DEFAULT_NETWORK;
  const capabilities = capabilitiesOf(network);
  const maxChars = capabilities.text.limit;
  const variants = [];
  for (let variant = 0; variant < (input.variants ?? 1); variant++) {
    const text = fitToNetwork(
      capabilities,
      await deps.ai.generatePost({ prompt: input.prompt, network, tone: input.tone, maxChars, variant }),
    );
    variants.push({ text, characters: [...text].length });
  }
  return { variants, network, maxCharacters: maxChars, provider: deps.ai.name };
}

export async function suggestHashtags(
  deps: DomainDeps,
  principal: Principal,
  input: { text: string; network?: string; count?: number },
): Promise<{ hashtags: string[]; provider: string }> {
  await consumeWriteBudgetForAppAi(deps, principal);
  const count = input.count ?? 5;
  const raw = await deps.ai.suggestHashtags({ text: input.text, network: input.network ?? DEFAULT_NETWORK, count });
  const seen = new Set<string>();
  const hashtags = raw
    .map((tag) => `#${tag.replace(/^#+/, '').replace(/[^\p{L}\p{N}_]/gu, '')}`)
    .filter((tag) => tag.length > 1 && !seen.has(tag.toLowerCase()) && seen.add(tag.toLowerCase()))
    .slice(0, count);
  return { hashtags, provider: deps.ai.name };
}

export async function rewrite(
  deps: DomainDeps,
  principal: Principal,
  input: { text: string; instruction: string; network?: string },
): Promise<{ text: string; characters: number; network: string; maxCharacters: number; provider: string }> {
  await consumeWriteBudgetForAppAi(deps, principal);
  const network = input.network ?? networkNamedIn(input.instruction) ?? DEFAULT_NETWORK;
  const capabilities = capabilitiesOf(network);
  const maxChars = capabilities.text.limit;
  const text = fitToNetwork(
    capabilities,
    await deps.ai.rewrite({ text: input.text, instruction: input.instruction, network, maxChars }),
  );
  return { text, characters: [...text].length, network, maxCharacters: maxChars, provider: deps.ai.name };
}

/**
 * The text within the network's limit as the network counts it. `characters` in results stays a count of Unicode
 * characters (code points), as it always was; on X it can be below X's weighted count, which maxCharacters bounds.
 */
function fitToNetwork(capabilities: NetworkCapabilities, text: string): string {
  return fitText(text, capabilities.text.limit, (t) => countBy(capabilities.text.counting, t));
}

const NETWORK_IN_INSTRUCTION = new RegExp(
  `\\bfor (${NETWORK_NAMES_AND_ALIASES.filter((n) => n !== 'sandbox').join('|')})\\b`,
  'i',
);

/** "shorter, for X" names the network in the instruction. */
function networkNamedIn(instruction: string): string | undefined {
  return NETWORK_IN_INSTRUCTION.exec(instruction)?.[1].toLowerCase();
}

/** Image prompts are text a provider renders or forwards: control characters (NUL, escapes) have no place in them. */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export async function generateImage(
  deps: DomainDeps,
  principal: Principal,
  input: { prompt: string; size?: keyof typeof IMAGE_SIZES; workspaceId?: string },
): Promise<{ data: MediaView; provider: string }> {
  await consumeWriteBudgetForAppAi(deps, principal);
  const control = CONTROL_CHARACTER.exec(input.prompt);
  if (control) {
    const codePoint = `U+${control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    throw new ValidationError(`prompt contains the control character ${codePoint}; describe the image in plain text.`, [
      { path: 'prompt', message: 'Remove control characters.' },
    ]);
  }
  const workspaceId = await resolveWorkspace(deps, principal, input.workspaceId);
  const bytes = await deps.ai.generateImage({ prompt: input.prompt, ...IMAGE_SIZES[input.size ?? 'square'] });
  const fileName = input.prompt.slice(0, 40) || 'generated';
  const data = await storeMedia(deps, principal, {
    workspaceId,
    bytes,
    fileName,
    source: 'generated',
    sourceUrl: null,
  });
  return { data, provider: deps.ai.name };
}
