/**
 * The WoA draft's example agent (Appendix: "Document Summarizer"), defined once and served in every format.
 * Run it: `agentry host examples/summarizer/agent.ts --port 8080`.
 *
 * The summary is extractive (the leading sentences, up to `max_words`), so the example needs no model.
 */
import { defineAgent } from '@agentry/host';

export const summarizer = defineAgent({
  id: 'summarizer',
  name: 'Document Summarizer',
  description: 'Summarizes English text.',
  version: '1.0.0',
  capabilities: ['https://example.com/capability/summarization'],
  tags: ['summarization', 'text', 'nlp'],
  languages: ['en'],
  operations: {
    default: {
      description: 'Default summarization operation.',
      input: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: {
          text: { type: 'string', description: 'Input document text in English.' },
          max_words: {
            type: 'integer',
            minimum: 10,
            maximum: 500,
            description: 'Maximum number of words in the summary.',
          },
        },
        required: ['text'],
      },
      output: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { summary: { type: 'string', description: 'The generated summary.' } },
        required: ['summary'],
      },
      safe: true,
      idempotent: true,
      deterministic: true,
      latency: 'low',
      examples: [
        {
          text: 'Summarize this article in 50 words',
          input: {
            text: 'Agents are becoming network services. Each ecosystem describes them differently.',
            max_words: 10,
          },
          output: { summary: 'Agents are becoming network services.' },
        },
      ],
      handler: (input: { text: string; max_words?: number }) => ({
        summary: summarize(input.text, input.max_words ?? 60),
      }),
    },
  },
});

export default summarizer;

/** The leading sentences of `text` that fit in `maxWords` words (at least one sentence, cut to the limit). */
export function summarize(text: string, maxWords: number): string {
  const sentences =
    text
      .match(/[^.!?]+[.!?]*/g)
      ?.map((sentence) => sentence.trim())
      .filter(Boolean) ?? [];
  const picked: string[] = [];
  let words = 0;
  for (const sentence of sentences) {
    const count = sentence.split(/\s+/).length;
    if (picked.length > 0 && words + count > maxWords) break;
    picked.push(sentence);
    words += count;
  }
  const summary = picked.join(' ').split(/\s+/).slice(0, maxWords).join(' ');
  return summary;
}
