/**
 * The chosen networks' options, as the capabilities table types them, and the channelOptions object they are sent
 * as. Alt text is not typed here: it comes from the media.
 */
import type { Dispatch, StateUpdater } from 'preact/hooks';
import type { components } from '../../../../sdk/src/index.js';
import type { ApiError } from '../../api.js';
import { FieldProblems } from '../../ui/page.js';
import { takesAltText } from './chosen-channels.js';
import type { ChosenMedia } from './media-field.js';
import type { NetworkRow } from './preview.js';

type OptionRule = components['schemas']['ChannelOptionRule'];
type Options = Record<string, Record<string, string>>;

/** The chosen networks' typed options (alt text comes from the media) as one channelOptions object. */
export function channelOptions(
  networks: string[],
  rows: Map<string, NetworkRow>,
  options: Options,
  media: ChosenMedia[],
): Record<string, unknown> | undefined {
  const result: Record<string, unknown> = {};
  for (const network of networks) {
    for (const rule of rows.get(network)!.channelOptions) {
      const value = options[network]?.[rule.name];
      if (value === undefined || value === '') continue;
      result[rule.name] =
        rule.type === 'boolean'
          ? value === 'true'
          : rule.type === 'string[]'
            ? value
                .split(',')
                .map((v) => v.trim())
                .filter(Boolean)
            : value;
    }
  }
  const altTexts = media.filter((m) => m.media.kind === 'image').map((m) => m.altText.trim());
  if (networks.some((n) => takesAltText(rows, n)) && altTexts.some((alt) => alt !== '')) result.altText = altTexts;
  return Object.keys(result).length > 0 ? result : undefined;
}

/**
 * An edited post's options: what the form shows, as changed, and the rest as the post had them (an option of
 * another network, or alt text the network does not use, is kept, not dropped by an edit of the text).
 */
export function editedOptions(
  had: Record<string, unknown>,
  networks: string[],
  rows: Map<string, NetworkRow>,
  options: Options,
  media: ChosenMedia[],
): Record<string, unknown> | undefined {
  const shown = new Set(networks.flatMap((n) => rows.get(n)!.channelOptions.map((rule) => rule.name)));
  const kept = Object.entries(had).filter(([name]) => !shown.has(name));
  const result: Record<string, unknown> = Object.fromEntries(kept);
  if ('altText' in had) result.altText = media.filter((m) => m.media.kind === 'image').map((m) => m.altText.trim());
  Object.assign(result, channelOptions(networks, rows, options, media));
  return Object.keys(result).length > 0 || Object.keys(had).length > 0 ? result : undefined;
}

/** The options of the chosen networks that have any besides alt text; nothing when none has. */
export function NetworkOptions(props: {
  networks: string[];
  rows: Map<string, NetworkRow>;
  options: Options;
  setOptions: Dispatch<StateUpdater<Options>>;
  refusal?: ApiError;
}) {
  const { networks, rows, options, setOptions } = props;
  if (!networks.some((n) => rows.get(n)!.channelOptions.some((rule) => rule.name !== 'altText'))) return null;
  return (
    <fieldset aria-describedby="options-problems">
      <legend>Network options</legend>
      {networks.map((network) =>
        rows
          .get(network)!
          .channelOptions.filter((rule) => rule.name !== 'altText')
          .map((rule) => (
            <OptionField
              key={`${network}.${rule.name}`}
              network={network}
              networkName={rows.get(network)!.displayName}
              rule={rule}
              value={options[network]?.[rule.name] ?? ''}
              onChange={(value) =>
                setOptions((all) => ({ ...all, [network]: { ...all[network], [rule.name]: value } }))
              }
            />
          )),
      )}
      <FieldProblems error={props.refusal} field={'channelOptions'} id="options-problems" />
    </fieldset>
  );
}

/** One of a network's channelOptions as the capabilities table types it: a choice, yes/no, a list or a text. */
function OptionField(props: {
  network: string;
  networkName: string;
  rule: OptionRule;
  value: string;
  onChange: (value: string) => void;
}) {
  const { network, rule } = props;
  const id = `option.${network}.${rule.name}`;
  const label = `${props.networkName} ${rule.name}${rule.required ? ' (required)' : ''}: ${rule.description}`;
  const change = (event: { currentTarget: { value: string } }) => props.onChange(event.currentTarget.value);
  return (
    <div class="option">
      <label for={id}>{label}</label>
      {typeof rule.type === 'object' ? (
        <select id={id} name={id} value={props.value} onChange={change}>
          <option value="">(default)</option>
          {rule.type.oneOf.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : rule.type === 'boolean' ? (
        <select id={id} name={id} value={props.value} onChange={change}>
          <option value="">(default)</option>
          <option value="true">yes</option>
          <option value="false">no</option>
        </select>
      ) : (
        <input
          id={id}
          name={id}
          value={props.value}
          maxLength={rule.type === 'string[]' ? undefined : rule.maxLength}
          placeholder={rule.type === 'string[]' ? 'comma-separated' : undefined}
          onInput={change}
        />
      )}
    </div>
  );
}
