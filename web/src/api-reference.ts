/**
 * Starts Redoc on the page /docs serves (src/web/app/spa.ts), over the REST API's own description. Redoc's
 * bundle, loaded just before this script, defines `Redoc`.
 */
interface RedocGlobal {
  init(
    specUrl: string,
    options: Record<string, unknown>,
    element: HTMLElement | null,
    callback?: (error?: unknown) => void,
  ): void;
}

const { Redoc } = window as unknown as { Redoc: RedocGlobal };
const root = document.getElementById('reference');

// Redoc heads an operation's sections (parameters, request body) at level 5 right under the operation's level 2:
// read as level 3, the outline has no gap for someone moving by headings.
function levelSections(): void {
  for (const heading of root?.querySelectorAll('h5:not([aria-level])') ?? []) heading.setAttribute('aria-level', '3');
}

// A code sample wider than its column scrolls; a keyboard can scroll it only once it can take focus.
function focusableSamples(): void {
  for (const sample of root?.querySelectorAll('pre:not([tabindex])') ?? []) {
    sample.setAttribute('tabindex', '0');
    sample.setAttribute('role', 'region');
    sample.setAttribute('aria-label', 'Code sample');
  }
}

function adjust(): void {
  levelSections();
  focusableSamples();
}

Redoc.init(
  '/v1/rest/openapi.json',
  {
    // Each operation would repeat that it takes a bearer key; the introduction says it once.
    hideSecuritySection: true,
    hideLogo: true,
  },
  root,
  () => {
    adjust();
    if (root) new MutationObserver(adjust).observe(root, { childList: true, subtree: true });
  },
);
