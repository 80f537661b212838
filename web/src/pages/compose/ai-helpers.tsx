/**
 * The AI helpers: hashtags, a network's fit, a draft of the text or an image from a prompt. They change the form in
 * place and save nothing; one runs at a time, and its refusal is shown beside the field it concerns.
 */
import { useState } from 'preact/hooks';
import { api, ApiError, call, toApiError } from '../../api.js';
import { FieldProblems } from '../../ui/page.js';
import type { ChosenChannels } from './chosen-channels.js';
import type { DraftSetters } from './draft-fields.js';
import type { NetworkRow } from './preview.js';

export function AiHelpers(props: {
  text: string;
  /** What the helpers change: the text, a network's own version, the media. */
  set: Pick<DraftSetters, 'text' | 'ownText' | 'media'>;
  chosen: ChosenChannels;
  rows: Map<string, NetworkRow>;
  /** An edit is one post: a fit changes its text rather than add a version. */
  editing: boolean;
  refusal?: ApiError;
  setRefusal: (refusal: ApiError | undefined) => void;
}) {
  const { text, rows, editing, setRefusal } = props;
  const { text: setText, ownText: setOwnText, media: setMedia } = props.set;
  const { chosen, networks, textFor } = props.chosen;
  const [prompt, setPrompt] = useState('');
  const [assisted, setAssisted] = useState('');
  const [asking, setAsking] = useState<string | undefined>(undefined);

  /** Runs one AI helper; its refusal is shown beside the field it concerns. */
  async function ask(what: string, field: 'text' | 'prompt', work: () => Promise<string>) {
    setRefusal(undefined);
    setAssisted('');
    setAsking(what);
    try {
      setAssisted(await work());
    } catch (caught) {
      const error = toApiError(caught);
      setRefusal(
        error.details.length > 0
          ? new ApiError(
              error.status,
              error.code,
              error.message,
              error.details.map((d) => ({ ...d, path: field })),
            )
          : new ApiError(error.status, error.code, error.message, [{ path: field, message: error.message }]),
      );
    } finally {
      setAsking(undefined);
    }
  }

  const needText = () => {
    if (text.trim() === '')
      throw new ApiError(400, 'invalid_request', 'Write some text first; the helper works on it.');
  };
  const needPrompt = () => {
    if (prompt.trim() === '') throw new ApiError(400, 'invalid_request', 'Describe what to write or draw first.');
  };
  const hashtags = () =>
    ask('hashtags', 'text', async () => {
      needText();
      const answer = await call(
        api.POST('/ai/hashtags', { body: { text, ...(networks[0] ? { network: networks[0] } : {}) } }),
      );
      const present = new Set((text.match(/#[\p{L}\p{N}_]+/gu) ?? []).map((tag) => tag.toLowerCase()));
      const fresh = answer.hashtags.filter((tag) => !present.has(tag.toLowerCase()));
      if (fresh.length === 0) return `Every hashtag ${answer.provider} suggested is already in the text.`;
      setText(`${text.trimEnd()}\n\n${fresh.join(' ')}`);
      const skipped = answer.hashtags.length - fresh.length;
      const left = skipped > 0 ? ` ${skipped} already in the text left out.` : '';
      return `Hashtags suggested by ${answer.provider}.${left}`;
    });
  /** A new post gets the network's own version (its channels' own text), from that version if it has one. */
  const fitTo = (network: string) =>
    ask(`rewrite:${network}`, 'text', async () => {
      const name = rows.get(network)?.displayName ?? network;
      const mine = chosen.filter((c) => c.network === network);
      const source = editing ? text : (mine.map(textFor).find((t) => t.trim() !== '') ?? text);
      if (source.trim() === '') needText();
      const body = { text: source, instruction: `Fit this post to ${network}.`, network };
      const answer = await call(api.POST('/ai/rewrites', { body }));
      const counted = `${answer.characters} of ${answer.maxCharacters} characters`;
      const fitted = `Rewritten to fit ${name} (${counted}) by ${answer.provider}.`;
      if (editing) {
        setText(answer.text);
        return fitted;
      }
      setOwnText((all) => ({ ...all, ...Object.fromEntries(mine.map((c) => [c.id, answer.text])) }));
      return `${fitted} It is ${name}'s own version: the other channels keep the text above.`;
    });
  const draft = () =>
    ask('draft', 'prompt', async () => {
      needPrompt();
      const answer = await call(
        api.POST('/ai/post-drafts', { body: { prompt, ...(networks[0] ? { network: networks[0] } : {}) } }),
      );
      setText(answer.variants[0].text);
      const name = rows.get(answer.network)?.displayName ?? answer.network;
      const counted = `${answer.variants[0].characters} of ${answer.maxCharacters} characters`;
      return `Drafted for ${name} (${counted}) by ${answer.provider}.`;
    });
  const image = () =>
    ask('image', 'prompt', async () => {
      needPrompt();
      const answer = await call(api.POST('/ai/images', { body: { prompt } }));
      setMedia((all) => [...all, { media: answer.data, altText: prompt.slice(0, 1500) }]);
      return `Image made by ${answer.provider} and added to the media; check its alt text.`;
    });

  return (
    <section class="assist" aria-labelledby="assist-title">
      <h2 id="assist-title">AI helpers</h2>
      <p class="muted">They change the text above or add an image; nothing is saved until you save.</p>
      <p class="assist-buttons">
        <button type="button" value="hashtags" onClick={hashtags} disabled={asking !== undefined}>
          Suggest hashtags
        </button>
        {networks.map((n) => (
          <button type="button" key={n} value={`rewrite:${n}`} onClick={() => fitTo(n)} disabled={asking !== undefined}>
            Fit to {rows.get(n)!.displayName}
          </button>
        ))}
      </p>
      <label for="prompt">Or ask for a draft or an image</label>
      <input
        id="prompt"
        name="prompt"
        maxLength={1000}
        value={prompt}
        aria-describedby="prompt-problems"
        onInput={(event) => setPrompt(event.currentTarget.value)}
      />
      <FieldProblems error={props.refusal} field={'prompt'} id="prompt-problems" />
      <p class="assist-buttons">
        <button type="button" value="draft" onClick={draft} disabled={asking !== undefined}>
          Draft the text
        </button>
        <button type="button" value="image" onClick={image} disabled={asking !== undefined}>
          Make an image
        </button>
      </p>
      <p id="assisted" role="status" class="assisted">
        {asking ? 'Asking the AI provider…' : assisted}
      </p>
    </section>
  );
}
