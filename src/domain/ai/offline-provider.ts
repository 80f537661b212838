import { fitText } from '../networks/text-length.js';
import type { AiProvider } from './ai-provider.js';

/**
 * The built-in provider: no network, no model. Keywords come from compromise's part-of-speech tagging
 * (nouns, noun phrases and named topics, ranked by frequency and position); rewriting and drafting are
 * deterministic templates over that analysis; images are branded text cards rendered from SVG by resvg.
 */
const OFFLINE_PROVIDER_NAME = 'herald-offline';

// compromise and resvg take seconds to load on a busy machine: load them on first use, not at every start.
async function nlpLibrary() {
  return (await import('compromise')).default;
}

interface Keyword {
  phrase: string;
  score: number;
}

/** Noun phrases and topics of a text, most relevant first. */
export async function keywords(text: string): Promise<Keyword[]> {
  const nlp = await nlpLibrary();
  const doc = nlp(text.replace(/#(\w+)/g, '$1'));
  const scores = new Map<string, Keyword>();
  const add = (phrase: string, weight: number) => {
    const words = phrase
      .replace(/[^\p{L}\p{N}\s-]/gu, ' ')
      .split(/[\s-]+/)
      .filter((w) => w.length > 1 && !/^\d+$/.test(w));
    if (words.length === 0 || words.length > 3) return;
    const key = words.join(' ').toLowerCase();
    const entry = scores.get(key) ?? { phrase: words.join(' '), score: 0 };
    entry.score += weight;
    scores.set(key, entry);
  };
  doc.topics().forEach((topic) => add(topic.text('text'), 3));
  doc.nouns().forEach((noun) => {
    const core = noun.not('(#Determiner|#Pronoun|#Possessive|#Adverb|#Value|#Conjunction|#Preposition)');
    core.terms().forEach((term) => {
      if (term.has('#Noun') && !term.has('#Pronoun')) add(term.text('normal'), 1);
    });
    core.forEach((part) => {
      const phrase = part.text('normal');
      if (phrase.split(' ').length > 1) add(phrase, 1.5);
    });
  });
  return [...scores.values()].sort((a, b) => b.score - a.score || a.phrase.localeCompare(b.phrase));
}

function toHashtag(phrase: string): string {
  const words = phrase.split(/\s+/).filter(Boolean);
  const camel = words.length === 1 ? words[0] : words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  return `#${camel.replace(/[^\p{L}\p{N}_]/gu, '')}`;
}

const TONE_OPENERS: Record<string, string[]> = {
  friendly: ['Good news:', 'Hey everyone!', 'Quick one for you:'],
  formal: ['We are pleased to announce', 'Announcement:', 'For your information:'],
  playful: ['Guess what?', 'Plot twist:', 'Big news, tiny post:'],
  excited: ['It is here!', 'Huge news!', 'Finally!'],
};

/** Applies a tone by its common markers: formal expands contractions and drops exclamations; friendly contracts. */
async function applyTone(text: string, tone: string | undefined): Promise<string> {
  const nlp = await nlpLibrary();
  switch (tone?.toLowerCase()) {
    case 'formal':
    case 'professional': {
      const doc = nlp(text);
      doc.contractions().expand();
      return doc
        .text()
        .replace(/!+/g, '.')
        .replace(/\s*[\u{1F300}-\u{1FAFF}\u{2600}-\u{27BF}]/gu, '');
    }
    case 'friendly':
    case 'casual':
    case 'playful': {
      const doc = nlp(text);
      doc.contract();
      return doc.text();
    }
    default:
      return text;
  }
}

async function keyPoints(prompt: string): Promise<{ topic: string; points: string[] }> {
  const lines = prompt
    .split(/\n+/)
    .map((line) => line.replace(/^\s*([-*•]|\d+[.)])\s*/, '').trim())
    .filter(Boolean);
  if (lines.length > 1) return { topic: lines[0], points: lines.slice(1) };
  const nlp = await nlpLibrary();
  const sentences = nlp(prompt).sentences().out('array') as string[];
  return { topic: sentences[0] ?? prompt, points: sentences.slice(1) };
}

function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

function wrap(text: string, perLine: number, maxLines: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && (line + ' ' + word).length > perLine) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  if (lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    kept[maxLines - 1] = `${kept[maxLines - 1].replace(/\W*$/, '')}…`;
    return kept;
  }
  return lines;
}

export class OfflineProvider implements AiProvider {
  readonly name = OFFLINE_PROVIDER_NAME;

  async suggestHashtags(input: { text: string; count: number }): Promise<string[]> {
    const present = [...input.text.matchAll(/#([\p{L}\p{N}_]+)/gu)].map((m) => `#${m[1]}`);
    const tags = [...present, ...(await keywords(input.text)).map((k) => toHashtag(k.phrase))];
    const seen = new Set<string>();
    return tags
      .filter((tag) => tag.length > 2 && !seen.has(tag.toLowerCase()) && seen.add(tag.toLowerCase()))
      .slice(0, input.count);
  }

  async generatePost(input: { prompt: string; tone?: string; maxChars: number; variant: number }): Promise<string> {
    const { topic, points } = await keyPoints(input.prompt);
    const openers = TONE_OPENERS[input.tone?.toLowerCase() ?? ''] ?? ['', 'In short:', 'Here is the news:'];
    const opener = openers[input.variant % openers.length];
    const head = sentence(opener ? `${opener} ${topic}` : topic);
    const body = points.length
      ? input.variant % 2 === 0
        ? points.map((p) => `• ${sentence(p)}`).join('\n')
        : points.map(sentence).join(' ')
      : '';
    const tags = (await this.suggestHashtags({ text: input.prompt, count: 3 })).join(' ');
    const draft = await applyTone([head, body].filter(Boolean).join('\n\n'), input.tone);
    const withTags = tags ? `${draft}\n\n${tags}` : draft;
    return [...withTags].length <= input.maxChars ? withTags : fitText(draft, input.maxChars);
  }

  async rewrite(input: { text: string; instruction: string; maxChars: number }): Promise<string> {
    const instruction = input.instruction.toLowerCase();
    const tone = ['formal', 'professional', 'friendly', 'casual', 'playful'].find((t) => instruction.includes(t));
    let text = await applyTone(input.text, tone);
    let limit = input.maxChars;
    if (/\b(short|shorter|concise|brief|tighten)\b/.test(instruction)) {
      const nlp = await nlpLibrary();
      const sentences = nlp(text).sentences().out('array') as string[];
      text = sentences.length > 1 ? sentences.slice(0, Math.max(1, Math.ceil(sentences.length / 2))).join(' ') : text;
      limit = Math.min(limit, Math.max(40, Math.ceil([...input.text].length * 0.7)));
    }
    return fitText(text, limit);
  }

  async generateImage(input: { prompt: string; width: number; height: number }): Promise<Buffer> {
    const { width, height } = input;
    const fontSize = Math.round(width / 16);
    const perLine = Math.floor((width * 0.8) / (fontSize * 0.55));
    const lines = wrap(input.prompt, perLine, Math.floor((height * 0.6) / (fontSize * 1.3)));
    const top = height / 2 - ((lines.length - 1) * fontSize * 1.3) / 2;
    const text = lines
      .map(
        (line, i) =>
          `<text x="${width / 2}" y="${top + i * fontSize * 1.3}" text-anchor="middle" ` +
          `dominant-baseline="middle">${escapeXml(line)}</text>`,
      )
      .join('');
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
      '<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">' +
      '<stop offset="0" stop-color="#1f2a44"/><stop offset="1" stop-color="#3b5bdb"/></linearGradient></defs>' +
      `<rect width="${width}" height="${height}" fill="url(#bg)"/>` +
      `<rect x="${width * 0.05}" y="${height * 0.05}" width="${width * 0.9}" height="${height * 0.9}" ` +
      `rx="${width * 0.03}" fill="none" stroke="#ffffff" stroke-opacity="0.35" ` +
      `stroke-width="${Math.max(2, width / 270)}"/>` +
      '<g font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif" font-weight="bold" ' +
      `font-size="${fontSize}" fill="#ffffff">${text}</g>` +
      `<text x="${width / 2}" y="${height * 0.9}" text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif" ` +
      `font-size="${Math.round(fontSize * 0.45)}" fill="#ffffff" fill-opacity="0.8">Herald</text>` +
      '</svg>';
    const { Resvg } = await import('@resvg/resvg-js');
    return new Resvg(svg, { font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } }).render().asPng();
  }
}
