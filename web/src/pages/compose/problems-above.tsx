/** A refusal's problems that no field of the form shows beside it, shown above the form so none goes unsaid. */
import type { ApiError } from '../../api.js';
import { inPeoplesWords } from '../../ui/problems.js';

/** Fields the form shows problems beside; a problem about anything else is shown above the form. */
const FIELDS = [
  'channelIds',
  'text',
  'textByChannel',
  'thread',
  'mediaIds',
  'imageUrls',
  'videoUrls',
  'firstComment',
  'channelOptions',
  'dateTime',
  'timezone',
  'addToQueue',
  'prompt',
];

export function ProblemsAbove(props: { refusal?: ApiError }) {
  const { refusal } = props;
  const elsewhere = refusal
    ? refusal.details.length === 0
      ? [inPeoplesWords(refusal.code, undefined, refusal.message)]
      : refusal.details
          .filter((d) => !FIELDS.some((f) => refusal.problemsAt(f).includes(d.message)))
          .map((d) => d.message)
    : [];
  return (
    <>
      {elsewhere.map((message) => (
        <p class="problem" role="alert" key={message}>
          {message}
        </p>
      ))}
    </>
  );
}
